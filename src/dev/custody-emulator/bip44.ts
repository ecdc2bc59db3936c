import type { BIP32Interface } from 'bip32';
import { Router } from 'express';
import { z } from 'zod';
import { parsePublicKey, toCustodyKeyId } from '../../ledger/public-key.js';
import type { EmulatorContext, Revision } from './context.js';
import { vaultOr404 } from './engine.js';
import { accountPath, bip32Root, coinTypeSchema, derivationPathSchema, keyIndex } from './keys.js';
import { listParams } from './listing.js';
import type { Bip44Account, Operation, Vault } from './model.js';
import { badRequest, notAcceptable, notFound, parse } from './problem.js';
import { addAccount, deriveAddress, requireInitialized } from './vaults.js';

const HARDENED = 0x80000000;
const pageOf = <T>(items: T[], q: { skip?: number; limit?: number }) => {
  const skip = q.skip ?? 0;
  return { totalItems: items.length, items: items.slice(skip, q.limit === undefined ? undefined : skip + q.limit) };
};
const keyText = (node: BIP32Interface) => toCustodyKeyId({ scheme: 'secp256k1', bytes: Uint8Array.from(node.publicKey) });

/** The BIP32 node's public material in the spec's BIP44-backup shape (an extended public key, field by field). */
function backupOf(vault: Vault, node: BIP32Interface): Record<string, unknown> {
  return {
    vaultId: vault.id,
    // The extended public key, base64: the emulator's backups never carry private material.
    backupData: Buffer.from(node.neutered().toBase58()).toString('base64'),
    bipLevel: node.depth,
    cpar: Buffer.from(node.chainCode).toString('hex'),
    parentFingerprint: node.parentFingerprint.toString(16).padStart(8, '0'),
    childNumber: node.index,
    publicKey: keyText(node),
  };
}

function hierarchical(vault: Vault, bip44Only = true): void {
  if (vault.hierarchy === 'NONE' || (bip44Only && vault.hierarchy !== 'BIP44')) {
    throw notAcceptable(`Vault ${vault.id} is not a ${bip44Only ? 'BIP44' : 'hierarchical'} vault (hierarchy ${vault.hierarchy}).`, 'not-supported');
  }
}

function coinAccounts(vault: Vault, coinParam: string): { coinType: number; accounts: Bip44Account[] } {
  hierarchical(vault);
  const coinType = Number(coinParam);
  if (!/^\d{1,10}$/.test(coinParam) || coinType >= HARDENED) throw badRequest(`coinType '${coinParam}' is not a coin type (0 … 2^31-1).`, 'invalid-arguments');
  const accounts = vault.coins[String(coinType)];
  if (!accounts) throw notFound(`Coin ${coinType} is not in vault ${vault.id}; POST {mng}/vaults/${vault.id}/coins first.`);
  return { coinType, accounts };
}

function findAccount(vault: Vault, coinParam: string, identifier: string): { coinType: number; account: Bip44Account } {
  const { coinType, accounts } = coinAccounts(vault, coinParam);
  const account = accounts.find((a) => String(a.index) === identifier) ?? accounts.find((a) => a.name === identifier);
  if (!account) throw notFound(`Account '${identifier}' does not exist under coin ${coinType} of vault ${vault.id}.`);
  return { coinType, account };
}

const chainOf = (chain: string, allowAll: boolean): ('external' | 'change')[] => {
  if (chain === 'external' || chain === 'change') return [chain];
  if (allowAll && chain === 'all') return ['external', 'change'];
  throw badRequest(`Unknown chain '${chain}'. Valid values: external, change${allowAll ? ', all' : ''}`, 'invalid-arguments');
};

/**
 * The address listing in the shape of each revision: 1.0.1811 the account's keys without
 * paging (`{publicKeys, accountName, accountIndex}`, as 1.0.1810 and 1.0.1812 describe it);
 * 1.0.1905 a page whose `items` are the keys (what the ERC-20 sample, which speaks the paged
 * `/casp` revision, reads as `items[0]`); 1.0.2106 a page whose `items` is the account object
 * (the 1.0.1901 description, which fills what the 1.0.2106 description leaves out).
 */
function addressListing(revision: Revision, all: string[], q: { skip?: number; limit?: number }, account: Bip44Account): unknown {
  const { totalItems, items } = pageOf(all, q);
  const keys = { publicKeys: items, accountName: account.name, accountIndex: account.index };
  if (revision === '1.0.1811') return keys;
  return revision === '1.0.1905' ? { totalItems, items } : { totalItems, items: keys };
}

/** BIP44 keychain: coins, accounts, chains, addresses, derivations, backups. */
export function bip44Routes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  const store = ctx.store;
  const mutate = <T>(id: string, change: (v: Vault) => T) =>
    store.exclusive(async () => {
      const vault = await vaultOr404(ctx, id);
      const out = change(vault);
      await store.put('vault', vault.id, vault);
      return out;
    });
  const pageQuery = (q: unknown) => listParams(q, {});

  r.get('/vaults/:id/coins', async (req, res) => {
    const q = pageQuery(req.query);
    const vault = await vaultOr404(ctx, req.params.id);
    hierarchical(vault);
    const coins = Object.keys(vault.coins).map(Number);
    // 1.0.1811 (as 1.0.1810 and 1.0.1812 describe it): `{coins}`, unpaged.
    res.json(revision === '1.0.1811' ? { coins: pageOf(coins, q).items } : pageOf(coins, q));
  });
  r.post('/vaults/:id/coins', async (req, res) => {
    const body = parse(z.object({ coinType: coinTypeSchema }), req.body);
    await mutate(req.params.id, (v) => {
      hierarchical(v);
      v.coins[String(body.coinType)] ??= [];
    });
    res.status(200).end();
  });
  r.get('/vaults/:vaultId/coins/:coinType/accounts', async (req, res) => {
    const q = pageQuery(req.query);
    const { accounts } = coinAccounts(await vaultOr404(ctx, req.params.vaultId), req.params.coinType);
    const page = pageOf(
      accounts.map((a) => ({ name: a.name, index: a.index })),
      q,
    );
    // 1.0.1811: a plain array.
    res.json(revision === '1.0.1811' ? page.items : page);
  });
  r.post('/vaults/:vaultId/coins/:coinType/accounts', async (req, res) => {
    const body = parse(z.object({ accountName: z.string().trim().min(1).max(200) }), req.body);
    const out = await mutate(req.params.vaultId, (v) => {
      const { coinType } = coinAccounts(v, req.params.coinType);
      return addAccount(v, coinType, body.accountName);
    });
    res.json({ publicKeys: [out.keyId], accountName: body.accountName, accountIndex: out.index });
  });
  r.get('/vaults/:vaultId/coins/:coinType/accounts/find', async (req, res) => {
    const q = parse(z.object({ accountName: z.string().min(1).max(200) }).strict(), req.query, 'query');
    const { accounts } = coinAccounts(await vaultOr404(ctx, req.params.vaultId), req.params.coinType);
    const account = accounts.find((a) => a.name === q.accountName);
    if (!account) throw notFound(`No account named '${q.accountName}'.`);
    res.json({ index: account.index });
  });
  r.get('/vaults/:vaultId/coins/:coinType/accounts/:account', async (req, res) => {
    const { account } = findAccount(await vaultOr404(ctx, req.params.vaultId), req.params.coinType, req.params.account);
    res.json({ accountName: account.name, accountIndex: account.index });
  });
  r.get('/vaults/:vaultId/coins/:coinType/accounts/:account/backup', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.vaultId);
    const { coinType, account } = findAccount(vault, req.params.coinType, req.params.account);
    requireInitialized(vault);
    res.json(backupOf(vault, bip32Root(vault.secret).derivePath(accountPath(coinType, account.index))));
  });
  r.get('/vaults/:vaultId/coins/:coinType/accounts/:account/operations', async (req, res) => {
    const q = pageQuery(req.query);
    const vault = await vaultOr404(ctx, req.params.vaultId);
    const { coinType, account } = findAccount(vault, req.params.coinType, req.params.account);
    const prefix = accountPath(coinType, account.index);
    const under = (text: string) => (vault.keys[keyIndex(parsePublicKey(text, 'secp256k1'))] ?? '').startsWith(prefix);
    const ops = (await store.list<Operation>('operation')).filter((o) => o.vaultID === vault.id && o.sign?.publicKeys.some(under));
    res.json(
      pageOf(
        ops.map(({ operationID, kind, status, statusText, createdAt, vaultID, description, accountID }) => ({
          operationID,
          kind,
          status,
          statusText,
          createdAt,
          vaultID,
          description,
          isApproved: status === 'COMPLETED' || status === 'APPROVED',
          accountID,
        })),
        q,
      ),
    );
  });
  r.get('/vaults/:vaultId/coins/:coinType/accounts/:account/chains/:chain/addresses', async (req, res) => {
    const q = pageQuery(req.query);
    const vault = await vaultOr404(ctx, req.params.vaultId);
    const { coinType, account } = findAccount(vault, req.params.coinType, req.params.account);
    const node = bip32Root(vault.secret).derivePath(accountPath(coinType, account.index));
    // Addresses in the order they were made (external before change); `lastUpdatedAt` (or
    // `createdAt`, `index`) descending puts the newest first, as the samples ask for it.
    const [column = '', direction = 'asc'] = (q.sort ?? '').split(':');
    if (q.sort && !['lastupdatedat', 'createdat', 'index'].includes(column.toLowerCase())) {
      throw badRequest(`Unknown sort column '${column}'. Valid values: lastUpdatedAt, createdAt, index`, 'invalid-arguments');
    }
    const keys = chainOf(req.params.chain, true).flatMap((c) => {
      const chain = node.derive(c === 'external' ? 0 : 1);
      return Array.from({ length: account.next[c] }, (_, i) => keyText(chain.derive(i)));
    });
    if (direction.toLowerCase() === 'desc') keys.reverse();
    res.json(addressListing(revision, keys, q, account));
  });
  r.post('/vaults/:vaultId/coins/:coinType/accounts/:account/chains/:chain/addresses', async (req, res) => {
    const publicKey = await mutate(req.params.vaultId, (v) => {
      const { coinType, account } = findAccount(v, req.params.coinType, req.params.account);
      const [c] = chainOf(req.params.chain, false) as ['external' | 'change'];
      return keyText(deriveAddress(v, coinType, account, c));
    });
    res.json({ publicKey });
  });

  const derivationQuery = z.object({ derivationPath: derivationPathSchema }).strict();
  r.get('/vaults/:vaultId/derivation', async (req, res) => {
    const q = parse(derivationQuery, req.query, 'query');
    const vault = await vaultOr404(ctx, req.params.vaultId);
    hierarchical(vault, false);
    res.json({ derivationPath: q.derivationPath, publicKey: keyText(bip32Root(vault.secret).derivePath(q.derivationPath)) });
  });
  r.get('/vaults/:vaultId/derivations', async (req, res) => {
    const q = pageQuery(req.query);
    const vault = await vaultOr404(ctx, req.params.vaultId);
    hierarchical(vault, false);
    res.json(pageOf(vault.derivations, q));
  });
  r.post('/vaults/:vaultId/derivations', async (req, res) => {
    const body = parse(
      z.object({
        pathToDeriveFrom: derivationPathSchema,
        hardDerivation: z.boolean(),
        childIndex: z
          .number()
          .int()
          .min(0)
          .max(HARDENED - 1),
      }),
      req.body,
    );
    const out = await mutate(req.params.vaultId, (v) => {
      hierarchical(v, false);
      const derivationPath = `${body.pathToDeriveFrom}/${body.childIndex}${body.hardDerivation ? "'" : ''}`;
      const node = bip32Root(v.secret).derivePath(derivationPath);
      v.keys[keyIndex({ scheme: 'secp256k1', bytes: Uint8Array.from(node.publicKey) })] = derivationPath;
      const entry = { derivationPath, publicKey: keyText(node) };
      if (!v.derivations.some((d) => d.derivationPath === derivationPath)) v.derivations.push(entry);
      return entry;
    });
    res.json(out);
  });
  r.get('/vaults/:vaultId/backup/:publicKey', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.vaultId);
    hierarchical(vault, false);
    let index: string;
    try {
      index = keyIndex(parsePublicKey(req.params.publicKey, 'secp256k1'));
    } catch (e) {
      throw badRequest(`publicKey: ${(e as Error).message}`, 'invalid-arguments');
    }
    const path = vault.keys[index];
    if (path === undefined) throw notFound(`Key ${req.params.publicKey} is not a key of vault ${vault.id}.`);
    res.json(backupOf(vault, bip32Root(vault.secret).derivePath(path)));
  });
  return r;
}
