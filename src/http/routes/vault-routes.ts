import { z } from 'zod';
import { ConflictError, InvalidArgumentError } from '../../platform/errors.js';
import { readVaultKey } from '../../vaults/custody-vault-keys.js';
import { resolveAssets } from '../../ledger/registry.js';
import { singleAddress, validateVault, vaultAddresses } from '../../vaults/vault-addresses.js';
import { vaultIdSchema, vaultRecordSchema, vaultRegistrationSchema, type Bip44Account, type VaultRecord } from '../../vaults/vault-schema.js';
import type { AppContext } from '../app-context.js';
import type { AuthContext } from '../auth.js';
import { isLimitedKey, reachesVault } from '../key-reach.js';
import { heavyRouteAccess } from '../open-routes.js';
import { assetBalanceSchema } from '../schemas.js';
import { defineRoute } from '../route.js';
import { assetsParam, renderBalances } from './ledger-routes.js';

/** The BIP44 account `coin` and `account` select (each optional); the first registered when neither is given. */
function selectAccount(record: VaultRecord, coin: string | undefined, account: string | undefined) {
  const accounts = record.accounts ?? (record.bip44 ? [record.bip44] : []);
  const found = accounts.find((a) => (coin === undefined || a.coin === coin) && (account === undefined || a.account === account));
  if (!found) {
    const asked = [coin !== undefined ? `coin '${coin}'` : '', account !== undefined ? `account '${account}'` : ''].filter(Boolean).join(' and ');
    throw new InvalidArgumentError(
      `Vault ${record.vaultId} has no BIP44 account with ${asked}. Valid values (coin/account): ${accounts.map((a) => `${a.coin}/${a.account}`).join(', ')}`,
    );
  }
  return found;
}

const vaultIdParams = z.object({ vaultId: vaultIdSchema });

export function vaultRoutes(ctx: AppContext) {
  return [registerVaultRoute(ctx), listVaultsRoute(ctx), readVaultRoute(ctx), removeVaultRoute(ctx), vaultBalanceRoute(ctx, heavyRouteAccess(ctx))];
}

/** POST /admin/vaults: registers a vault, or adds a further BIP44 account to one. */
function registerVaultRoute(ctx: AppContext) {
  return defineRoute({
    method: 'post',
    path: '/admin/vaults',
    summary:
      'Register a vault: by id alone (its key, or with coin and account its BIP44 account backup, read from the custody service), or with its public key or BIP44 account backup given. A further account of a registered BIP44 vault is added to it.',
    tags: ['vault registry'],
    scope: 'admin',
    body: vaultRegistrationSchema,
    status: 201,
    response: vaultRecordSchema,
    errors: [401, 403, 404, 409, 422, 502, 503],
    handler: async ({ body }) => {
      const adaptor = ctx.registry.get(body.ledgerId);
      const key =
        body.publicKey || body.bip44
          ? { publicKey: body.publicKey, bip44: body.bip44 }
          : await readVaultKey(ctx.custody, body.vaultId, body.coin === undefined ? undefined : { coin: body.coin, account: body.account as string });
      const bip44 = 'bip44' in key ? key.bip44 : undefined;
      const record: VaultRecord = {
        vaultId: body.vaultId,
        ledgerId: adaptor.ledgerId,
        kind: bip44 ? 'bip44' : 'single',
        publicKey: 'publicKey' in key ? key.publicKey : undefined,
        addressFormat: body.addressFormat,
        bip44,
        description: body.description,
        createdAt: new Date().toISOString(),
      };
      validateVault(adaptor, record);
      if (record.kind === 'single') record.address = singleAddress(adaptor, record).address;
      if (!bip44) {
        await ctx.vaults.create(record);
        return record;
      }
      return createOrAddAccount(ctx, record, bip44);
    },
  });
}

/**
 * Stores a new BIP44 vault; when the custody vault is registered already, adds the account to it
 * (one custody vault, several BIP44 accounts), if it is a BIP44 vault of the same ledger and format.
 */
async function createOrAddAccount(ctx: AppContext, record: VaultRecord, bip44: Bip44Account) {
  const created = await ctx.vaults.create(record).then(
    () => true,
    (e: unknown) => {
      if (e instanceof ConflictError) return false;
      throw e;
    },
  );
  if (created) return { ...record, accounts: [bip44] };
  // One custody vault, several BIP44 accounts: a further account joins the registered vault.
  const existing = await ctx.vaults.get(record.vaultId);
  if (existing.kind !== 'bip44' || existing.ledgerId !== record.ledgerId || existing.addressFormat !== record.addressFormat) {
    throw new ConflictError(
      `Vault '${record.vaultId}' is registered as a ${existing.kind} vault on ${existing.ledgerId}; a further BIP44 account needs the same ledger and address format`,
      'ERR_VAULT_EXISTS',
    );
  }
  return ctx.vaults.addAccount(existing, bip44);
}

/** GET /admin/vaults */
function listVaultsRoute(ctx: AppContext) {
  return defineRoute({
    method: 'get',
    path: '/admin/vaults',
    summary: 'List registered vaults',
    tags: ['vault registry'],
    scope: 'admin',
    query: z.object({
      offset: z.coerce.number().int().min(0).default(0),
      limit: z.coerce.number().int().min(1).max(500).default(100),
    }),
    response: z.object({ totalItems: z.number(), items: z.array(vaultRecordSchema) }),
    acrossVaults: 'filter',
    handler: async ({ query, auth }) => {
      if (!isLimitedKey(auth)) {
        const { total, items } = await ctx.vaults.list(query.offset, query.limit);
        return { totalItems: total, items };
      }
      const mine = (await reachableVaults(ctx, auth)).filter((r) => reachesVault(auth, r.vaultId, r.ledgerId));
      return { totalItems: mine.length, items: mine.slice(query.offset, query.offset + query.limit) };
    },
  });
}

/** The registered vaults a limited key may see (a key limited to ledgers only: every vault, filtered by the caller), in registration order. */
async function reachableVaults(ctx: AppContext, auth: AuthContext): Promise<VaultRecord[]> {
  if (auth.vaults) {
    const found = await Promise.all(auth.vaults.map((id) => ctx.vaults.find(id)));
    return found.filter((r): r is VaultRecord => r !== undefined).sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }
  const all: VaultRecord[] = [];
  for (let offset = 0; ; offset += 500) {
    const { items } = await ctx.vaults.list(offset, 500);
    all.push(...items);
    if (items.length < 500) return all;
  }
}

/** GET /admin/vaults/:vaultId, with the addresses the vault controls. */
function readVaultRoute(ctx: AppContext) {
  return defineRoute({
    method: 'get',
    path: '/admin/vaults/:vaultId',
    summary: 'Read a registered vault with the addresses it currently controls',
    tags: ['vault registry'],
    scope: 'admin',
    params: vaultIdParams,
    response: vaultRecordSchema.extend({ addresses: z.array(z.object({ address: z.string(), path: z.string().optional() })) }),
    errors: [404],
    handler: async ({ params }) => {
      const record = await ctx.vaults.get(params.vaultId);
      const adaptor = ctx.registry.get(record.ledgerId);
      const addresses = await vaultAddresses(adaptor, record, ctx.config.bip44GapLimit, ctx.vaults.addresses);
      return { ...record, addresses: addresses.map((a) => ({ address: a.address, path: a.path })) };
    },
  });
}

/** DELETE /admin/vaults/:vaultId */
function removeVaultRoute(ctx: AppContext) {
  return defineRoute({
    method: 'delete',
    path: '/admin/vaults/:vaultId',
    summary: 'Remove a vault from the registry',
    tags: ['vault registry'],
    scope: 'admin',
    params: vaultIdParams,
    response: z.object({ vaultId: z.string(), removed: z.boolean() }),
    errors: [404],
    handler: async ({ params }) => {
      await ctx.vaults.remove(params.vaultId);
      return { vaultId: params.vaultId, removed: true };
    },
  });
}

/** GET /vaults/:vaultId/balance, a heavy open route. */
function vaultBalanceRoute(ctx: AppContext, heavy: ReturnType<typeof heavyRouteAccess>) {
  return defineRoute({
    method: 'get',
    path: '/vaults/:vaultId/balance',
    summary: 'Balance of a vault; a BIP44 vault sums its receive and change addresses',
    tags: ['wallet'],
    scope: 'read',
    guard: heavy.guard,
    params: vaultIdParams,
    query: z.object({ assets: assetsParam, coin: z.string().optional(), account: z.string().optional() }),
    response: z
      .object({
        vaultId: z.string(),
        balances: z.array(assetBalanceSchema),
        address: z.string().optional(),
        coin: z.string().optional(),
        account: z.string().optional(),
      })
      .meta({ id: 'VaultBalanceResponse' }),
    errors: [401, 403, 404, 422, 429, 503],
    handler: async ({ params, query }) => {
      const record = await ctx.vaults.get(params.vaultId);
      const adaptor = ctx.registry.get(record.ledgerId);
      const assets = resolveAssets(adaptor, query.assets);
      if (record.kind !== 'bip44' && (query.coin !== undefined || query.account !== undefined)) {
        throw new InvalidArgumentError(`coin and account apply to BIP44 vaults only; vault ${record.vaultId} is a single-key vault`);
      }
      const selected = record.kind === 'bip44' ? { ...record, bip44: selectAccount(record, query.coin, query.account) } : record;
      const addresses = await vaultAddresses(adaptor, selected, ctx.config.bip44GapLimit, ctx.vaults.addresses);
      const balances = await adaptor.getBalances(
        addresses.map((a) => a.address),
        assets,
      );
      return {
        vaultId: record.vaultId,
        balances: renderBalances(assets, balances),
        ...(record.kind === 'single' ? { address: addresses[0]?.address } : { coin: selected.bip44?.coin, account: selected.bip44?.account }),
      };
    },
  });
}
