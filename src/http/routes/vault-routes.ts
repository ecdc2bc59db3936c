import { z } from 'zod';
import { InvalidArgumentError } from '../../errors.js';
import { resolveAssets } from '../../ledger/registry.js';
import { singleAddress, validateVault, vaultAddresses } from '../../vaults/vault-addresses.js';
import { vaultRecordSchema, vaultRegistrationSchema, type VaultRecord } from '../../vaults/vault-schema.js';
import type { AppContext } from '../app-context.js';
import { assetBalanceSchema } from '../schemas.js';
import { defineRoute } from '../route.js';
import { assetsParam, renderBalances } from './ledger-routes.js';

const vaultIdParams = z.object({ vaultId: z.string().min(1).max(128) });

export function vaultRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'post',
      path: '/admin/vaults',
      summary: 'Register a vault: its ledger and public key, or the public part of its BIP44 account backup',
      tags: ['vault registry'],
      scope: 'admin',
      body: vaultRegistrationSchema,
      status: 201,
      response: vaultRecordSchema,
      errors: [401, 403, 409, 422],
      handler: async ({ body }) => {
        const adaptor = ctx.registry.get(body.ledgerId);
        const record: VaultRecord = {
          vaultId: body.vaultId,
          ledgerId: adaptor.ledgerId,
          kind: body.bip44 ? 'bip44' : 'single',
          publicKey: body.publicKey,
          addressFormat: body.addressFormat,
          bip44: body.bip44,
          description: body.description,
          createdAt: new Date().toISOString(),
        };
        validateVault(adaptor, record);
        if (record.kind === 'single') record.address = singleAddress(adaptor, record).address;
        await ctx.vaults.create(record);
        return record;
      },
    }),
    defineRoute({
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
      handler: async ({ query }) => {
        const { total, items } = await ctx.vaults.list(query.offset, query.limit);
        return { totalItems: total, items };
      },
    }),
    defineRoute({
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
        const addresses = await vaultAddresses(adaptor, record, ctx.config.bip44GapLimit);
        return { ...record, addresses: addresses.map((a) => ({ address: a.address, path: a.path })) };
      },
    }),
    defineRoute({
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
    }),
    defineRoute({
      method: 'get',
      path: '/vaults/:vaultId/balance',
      summary: 'Balance of a vault; a BIP44 vault sums its receive and change addresses',
      tags: ['wallet'],
      scope: 'read',
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
      errors: [401, 403, 404, 422, 503],
      handler: async ({ params, query }) => {
        const record = await ctx.vaults.get(params.vaultId);
        const adaptor = ctx.registry.get(record.ledgerId);
        const assets = resolveAssets(adaptor, query.assets);
        if (record.kind === 'bip44') {
          for (const field of ['coin', 'account'] as const) {
            const asked = query[field];
            const has = record.bip44?.[field];
            if (asked !== undefined && asked !== has) {
              throw new InvalidArgumentError(`Vault ${record.vaultId} has ${field} '${has}', not '${asked}'. Valid values: ${has}`);
            }
          }
        } else if (query.coin !== undefined || query.account !== undefined) {
          throw new InvalidArgumentError(`coin and account apply to BIP44 vaults only; vault ${record.vaultId} is a single-key vault`);
        }
        const addresses = await vaultAddresses(adaptor, record, ctx.config.bip44GapLimit);
        const balances = await adaptor.getBalances(addresses.map((a) => a.address), assets);
        return {
          vaultId: record.vaultId,
          balances: renderBalances(assets, balances),
          ...(record.kind === 'single' ? { address: addresses[0]?.address } : { coin: record.bip44?.coin, account: record.bip44?.account }),
        };
      },
    }),
  ];
}
