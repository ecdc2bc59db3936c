import { randomUUID } from 'node:crypto';
import type { BIP32Interface } from 'bip32';
import { Router } from 'express';
import { z } from 'zod';
import { accountOr404 } from './accounts.js';
import type { EmulatorContext, Revision } from './context.js';
import { newOperation, vaultOr404 } from './engine.js';
import { accountPath, bip32Root, coinTypeSchema, keyIndex, newSecret, signerAt } from './keys.js';
import { listParams, page, queryFlag } from './listing.js';
import type { Account, Bip44Account, Operation, Participant, Vault, VaultOutline } from './model.js';
import { vaultPolicySchema } from './policy.js';
import { badRequest, conflict, forbidden, notAcceptable, notFound, parse } from './problem.js';
import { loadDirectory, operationDetails, vaultView } from './views.js';

const createBody = z.object({
  name: z.string().trim().min(1).max(200),
  description: z.string().max(2_000).default(''),
  groups: z
    .array(
      z.object({
        name: z.string().trim().min(1).max(200),
        requiredApprovals: z.number().int().min(1).max(100),
        members: z
          .array(z.object({ id: z.string().min(1).max(100) }))
          .min(1)
          .max(100),
      }),
    )
    .min(1)
    .max(20),
  cryptoKind: z.enum(['ECDSA', 'EDDSA']),
  providerKind: z.string().max(100).default(''),
  hierarchy: z.enum(['NONE', 'BIP32', 'BIP44']).default('NONE'),
  coinType: coinTypeSchema.optional(),
  firstAccountName: z.string().trim().min(1).max(200).optional(),
  /**
   * Sent by the published samples on every vault (1.0.1812 describes it on the coin-type
   * layer's vault creation, "the amount of BIP44 accounts to derive"): a BIP44 vault derives
   * that many addresses on its first account's external chain at creation, so that the first
   * address can be listed at once. Ignored by vaults without a BIP44 hierarchy. Default 1: the
   * ERC-20 sample lists a new BIP44 vault's last address without making one first.
   */
  /** The quorum policy's time zone and rules (an emulator extension: the description gives no vault-creation shape for 1.0.2106). */
  policy: vaultPolicySchema.optional(),
  subAccountsToDerive: z.preprocess((v) => (typeof v === 'string' && /^\d{1,4}$/.test(v) ? Number(v) : v), z.number().int().min(0).max(1_000)).optional(),
});

/** Refuses what the service would: unknown or foreign members, impossible quorums, duplicates. */
function checkGroups(body: z.infer<typeof createBody>, account: Account, people: Map<string, Participant>, accounts: Map<string, Account>): void {
  const seen = new Set<string>();
  const names = new Set<string>();
  for (const g of body.groups) {
    if (names.has(g.name)) throw badRequest(`Group name '${g.name}' is used twice.`, 'invalid-groups');
    names.add(g.name);
    if (g.requiredApprovals > g.members.length)
      throw badRequest(`Group '${g.name}' requires ${g.requiredApprovals} approvals but has ${g.members.length} member(s).`, 'invalid-groups');
    for (const { id } of g.members) {
      const p = people.get(id);
      if (!p) throw notFound(`Participant ${id} does not exist.`);
      if (p.accountID !== account.id && !accounts.get(p.accountID)?.isGlobal)
        throw badRequest(`Participant ${id} belongs to another, non-global account.`, 'invalid-groups');
      if (p.status === 'DEACTIVATED') throw badRequest(`Participant ${id} is deactivated.`, 'invalid-groups');
      if (seen.has(id)) throw badRequest(`Participant ${id} appears twice in the vault.`, 'invalid-groups');
      seen.add(id);
    }
  }
  if (body.hierarchy !== 'NONE' && body.cryptoKind !== 'ECDSA') throw badRequest(`${body.hierarchy} vaults are ECDSA (secp256k1) only.`, 'invalid-arguments');
  // coinType, firstAccountName and subAccountsToDerive are optional for every hierarchy in
  // the interface; a vault without a BIP44 hierarchy has no accounts and ignores them.
}

export type VaultSpec = z.infer<typeof createBody>;

export function buildVault(body: VaultSpec, accountID: string, iso: string): Vault {
  const vault: Vault = {
    id: randomUUID(),
    accountID,
    name: body.name,
    description: body.description,
    cryptoKind: body.cryptoKind,
    hierarchy: body.hierarchy,
    providerKind: body.providerKind,
    status: 'NOT_INITIALIZED',
    policyId: randomUUID(),
    ...(body.policy ? { policy: body.policy } : {}),
    groups: body.groups.map((g, order) => ({
      name: g.name,
      requiredApprovals: g.requiredApprovals,
      order,
      members: g.members.map(({ id }) => ({ id, joined: false, status: 'ACTIVE' as const })),
    })),
    secret: newSecret(body.cryptoKind, body.hierarchy),
    publicKey: '',
    keys: {},
    coins: {},
    derivations: [],
    createdAt: iso,
  };
  if (vault.hierarchy === 'NONE') {
    const signer = signerAt(vault, 'm');
    vault.publicKey = signer.keyId;
    vault.keys[keyIndex(signer.publicKey)] = 'm';
  }
  if (vault.hierarchy === 'BIP44' && body.coinType !== undefined) {
    const { index } = addAccount(vault, body.coinType, body.firstAccountName ?? 'Account 0');
    const account = vault.coins[String(body.coinType)]?.[index];
    for (let i = 0; account && i < (body.subAccountsToDerive ?? 1); i++) deriveAddress(vault, body.coinType, account, 'external');
  }
  return vault;
}

/** Adds a BIP44 account under a coin (creating the coin) and registers its key; returns its key id. */
export function addAccount(vault: Vault, coinType: number, name: string): { index: number; keyId: string } {
  const accounts = (vault.coins[String(coinType)] ??= []);
  if (accounts.some((a) => a.name === name)) throw conflict(`Account '${name}' exists already under coin ${coinType}.`, 'account-exists');
  const index = accounts.length;
  accounts.push({ index, name, next: { external: 0, change: 0 } });
  const path = accountPath(coinType, index);
  const signer = signerAt(vault, path);
  vault.keys[keyIndex(signer.publicKey)] = path;
  return { index, keyId: signer.keyId };
}

/** The next address of an account's chain, registered as a key of the vault; returns the node. */
export function deriveAddress(vault: Vault, coinType: number, account: Bip44Account, chain: 'external' | 'change'): BIP32Interface {
  const path = `${accountPath(coinType, account.index)}/${chain === 'external' ? 0 : 1}/${account.next[chain]++}`;
  const node = bip32Root(vault.secret).derivePath(path);
  vault.keys[keyIndex({ scheme: 'secp256k1', bytes: Uint8Array.from(node.publicKey) })] = path;
  return node;
}

/** What a deleted vault leaves behind for its operations' views: no key material. */
function outline(v: Vault): VaultOutline {
  return { id: v.id, accountID: v.accountID, name: v.name, providerKind: v.providerKind, policyId: v.policyId, policy: v.policy, groups: v.groups };
}

export function requireInitialized(vault: Vault): void {
  if (vault.status !== 'INITIALIZED') throw badRequest(`Vault ${vault.id} is ${vault.status}: every member must join first.`, 'vault-not-initialized');
}

export function vaultRoutes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  const store = ctx.store;
  const pendingOf = (ops: Operation[], id: string) => ops.filter((o) => o.vaultID === id && o.status === 'PENDING' && o.kind !== 'JOIN_POLICY_VAULT').length;

  r.post('/accounts/:id/vaults', async (req, res) => {
    const body = parse(createBody, req.body);
    const { vault, joins } = await store.exclusive(async () => {
      const account = await accountOr404(ctx, req.params.id);
      const dir = await loadDirectory(ctx);
      checkGroups(body, account, dir.participants, dir.accounts);
      const existing = (await store.list<Vault>('vault')).filter((v) => v.accountID === account.id);
      if (existing.some((v) => v.name === body.name)) throw conflict(`Vault ${body.name} exists already in account ${account.id}.`, 'vault-exists');
      const vault = buildVault(body, account.id, ctx.iso());
      await store.put('vault', vault.id, vault);
      const joins: Operation[] = [];
      for (const g of vault.groups) {
        for (const m of g.members)
          joins.push(await newOperation(ctx, vault, 'JOIN_POLICY_VAULT', `Join vault ${vault.name}`, { member: { participantID: m.id, groupName: g.name } }));
      }
      return { vault, joins };
    });
    ctx.logger.info({ vaultId: vault.id, hierarchy: vault.hierarchy, cryptoKind: vault.cryptoKind }, 'vault created');
    joins.forEach((j) => ctx.hooks.operationCreated(j));
    res.status(201).json({ id: vault.id, name: vault.name, description: vault.description, accountID: vault.accountID });
  });

  r.get('/accounts/:id/vaults', async (req, res) => {
    const q = listParams(req.query, { withDeactivated: queryFlag, providerKind: z.string().max(100).optional() });
    const account = await accountOr404(ctx, req.params.id);
    const [vaults, ops, dir] = await Promise.all([store.list<Vault>('vault'), store.list<Operation>('operation'), loadDirectory(ctx)]);
    const rows = vaults
      .filter(
        (v) =>
          v.accountID === account.id &&
          (q.withDeactivated || v.status !== 'DEACTIVATED') &&
          (q.providerKind === undefined || v.providerKind === q.providerKind),
      )
      .map((v) => vaultView(v, dir, pendingOf(ops, v.id)) as Record<string, unknown> & { name: string; status: string });
    res.json(page(rows, q, (v) => v.name, { Name: (v) => v.name, Status: (v) => v.status }, revision));
  });

  r.get('/vaults/:id', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.id);
    const [ops, dir] = await Promise.all([store.list<Operation>('operation'), loadDirectory(ctx)]);
    res.json(vaultView(vault, dir, pendingOf(ops, vault.id)));
  });

  r.put('/vaults/:id', async (req, res) => {
    const body = parse(z.object({ name: z.string().trim().min(1).max(200), description: z.string().max(2_000) }), req.body);
    const op = await store.exclusive(async () => {
      const vault = await vaultOr404(ctx, req.params.id);
      if (vault.status === 'NOT_INITIALIZED') {
        await store.put('vault', vault.id, { ...vault, ...body });
        return undefined;
      }
      // An activated vault changes only with its quorum's approval: 202 and an operation.
      return newOperation(ctx, vault, 'UPDATE_VAULT', `Update vault ${vault.name}`, { update: body });
    });
    if (!op) return void res.status(200).end();
    ctx.hooks.operationCreated(op);
    res.status(202).json(await operationDetails(ctx, op));
  });

  r.delete('/vaults/:id', async (req, res) => {
    await store.exclusive(async () => {
      const vault = await vaultOr404(ctx, req.params.id);
      if (vault.status !== 'NOT_INITIALIZED')
        throw forbidden(`Vault ${vault.id} is ${vault.status}; only a vault not yet activated can be deleted.`, 'vault-not-deletable');
      for (const op of await store.list<Operation>('operation')) {
        if (op.vaultID === vault.id && op.status === 'PENDING')
          await store.put('operation', op.operationID, { ...op, status: 'CANCELED', statusText: 'Canceled' });
      }
      await store.put('deleted-vault', vault.id, outline(vault));
      await store.del('vault', vault.id);
    });
    res.status(200).end();
  });

  r.get('/vaults/:id/publickey', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.id);
    if (vault.hierarchy !== 'NONE')
      throw notAcceptable(`Vault ${vault.id} is ${vault.hierarchy}: its keys are per account (coins/{coin}/accounts/{account}/backup).`, 'not-single-key');
    requireInitialized(vault);
    res.json({ publicKey: vault.publicKey });
  });

  r.get('/vaults/:id/backup', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.id);
    requireInitialized(vault);
    // Public material only: the emulator never hands out the private keys it holds.
    const material = vault.hierarchy === 'NONE' ? { publicKey: vault.publicKey } : { xpub: bip32Root(vault.secret).neutered().toBase58() };
    res.json({ vaultID: vault.id, backupData: Buffer.from(JSON.stringify({ vaultId: vault.id, ...material })).toString('base64') });
  });

  r.get('/vaults/:id/keyserviceKeys', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.id);
    res.json(vault.groups.flatMap((g) => g.members.filter((m) => m.joined).map((m) => ({ keyserviceKeyId: `${vault.id}:${m.id}` }))));
  });
  return r;
}
