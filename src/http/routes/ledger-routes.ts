import { z } from 'zod';
import { InvalidArgumentError } from '../../platform/errors.js';
import { formatAmount } from '../../ledger/amounts.js';
import type { AssetInfo, Balance, LedgerAdaptor } from '../../ledger/adaptor.js';
import { ALL_ASSETS, resolveAssets } from '../../ledger/registry.js';
import type { AppContext } from '../app-context.js';
import { inThreadDeriver } from '../../vaults/derivation/derive-addresses.js';
import { heavyRouteAccess } from '../open-routes.js';
import { assetBalanceSchema, ledgerIdParam } from '../schemas.js';
import { defineRoute, listParam } from '../route.js';

/** Sums balances per asset and renders them as decimal strings in asset units. */
export function renderBalances(assets: AssetInfo[], balances: Balance[]): { asset: string; amount: string }[] {
  return assets.map((asset) => {
    const total = balances.filter((b) => b.asset === asset.symbol).reduce((sum, b) => sum + b.amount, 0n);
    return { asset: asset.symbol, amount: formatAmount(total, asset.decimals) };
  });
}

/** The `assets` query of balance routes. */
export const assetsParam = listParam.describe(
  `Asset symbols, comma-separated, repeated or as assets[]=; the ledger's native asset when absent; '${ALL_ASSETS}' for every asset of the ledger`,
);

/**
 * The address of a balance route names an account. A recipient form with a query part
 * (Stellar's `G…?memo=…`) says how to pay an account, not which one holds funds: refused rather
 * than answered with the base account's balance, which for an exchange's shared deposit account
 * is everyone's funds, not the memo holder's.
 */
export function requireAccountAddress(adaptor: LedgerAdaptor, address: string): void {
  requireValidAddress(adaptor, address);
  const query = address.indexOf('?');
  if (query >= 0) {
    throw new InvalidArgumentError(
      `address '${address}' is a payment recipient (an address with '${address.slice(query)}'), not an account; a balance is of the address alone: '${address.slice(0, query)}'`,
      { field: 'address' },
    );
  }
}

export function requireValidAddress(adaptor: LedgerAdaptor, address: string, field = 'address'): void {
  if (!adaptor.isValidAddress(address)) {
    throw new InvalidArgumentError(`${field} '${address}' is not a valid ${adaptor.ledgerId} address`, { field });
  }
}

export function ledgerRoutes(ctx: AppContext) {
  const maxKeys = ctx.config.maxKeysPerRequest;
  const heavy = heavyRouteAccess(ctx);
  const deriver = ctx.addressDeriver ?? inThreadDeriver(heavy.slicer);
  const addressParams = z.object({ ledgerId: ledgerIdParam, address: z.string().min(1).max(512) });
  return [
    defineRoute({
      method: 'get',
      path: '/ledgers/:ledgerId/addresses/:address/valid',
      summary: 'Whether an address is a valid recipient on the ledger (also for built-in ledger ids without a back end)',
      tags: ['wallet'],
      params: addressParams,
      response: z.object({ address: z.string(), valid: z.boolean() }),
      errors: [422],
      handler: ({ params }) => {
        const codec = ctx.registry.addressCodec(params.ledgerId);
        return { address: params.address, valid: codec.isValidAddress(params.address) };
      },
    }),
    defineRoute({
      method: 'post',
      path: '/ledgers/:ledgerId/address-from-publickey',
      summary: `Addresses for public keys (DER SPKI hex, raw 65/33-byte secp256k1, raw 32-byte ed25519); at most ${maxKeys} keys; also for built-in ledger ids without a back end`,
      tags: ['wallet'],
      scope: heavy.openScope,
      // The rate limit before the body is read: a client over its limit costs no parse.
      beforeBody: heavy.guard,
      // Open, it takes a whole batch: a key as DER SPKI hex (the longest form) is 176 characters.
      ...(heavy.openScope ? {} : { bodyLimit: `${maxKeys * 200 + 1024}b` }),
      params: z.object({ ledgerId: ledgerIdParam }),
      body: z.object({
        keys: z.array(z.string()).min(1).max(maxKeys, `at most ${maxKeys} keys per request (MAX_KEYS_PER_REQUEST)`),
        format: z.string().optional().describe('Address format; the ledger default when absent (see GET /config)'),
      }),
      response: z.object({ items: z.array(z.object({ address: z.string() })) }),
      errors: [413, 422, ...heavy.errors],
      handler: async ({ params, body }) => {
        const adaptor = ctx.registry.addressCodec(params.ledgerId);
        const formats = adaptor.addressFormats();
        if (body.format !== undefined && !formats.includes(body.format)) {
          throw new InvalidArgumentError(`Unknown format '${body.format}' for ledger ${adaptor.ledgerId}. Valid values: ${formats.join(', ')}`);
        }
        // Deriving 10,000 addresses takes most of a second of CPU: off the event loop, so other requests are served meanwhile.
        const addresses = await deriver.derive(adaptor, body.keys, body.format);
        const items = addresses.map((address) => ({ address }));
        return { items };
      },
    }),
    defineRoute({
      method: 'get',
      path: '/ledgers/:ledgerId/addresses/:address/balance',
      summary: 'Balances of one address, in asset units as decimal strings',
      tags: ['wallet'],
      scope: heavy.openScope,
      guard: heavy.guard,
      params: addressParams,
      query: z.object({ assets: assetsParam }),
      response: z.object({ address: z.string(), balances: z.array(assetBalanceSchema) }).meta({ id: 'AddressBalanceResponse' }),
      errors: [422, 503, ...heavy.errors],
      handler: async ({ params, query }) => {
        const adaptor = ctx.registry.get(params.ledgerId);
        const assets = resolveAssets(adaptor, query.assets);
        requireAccountAddress(adaptor, params.address);
        const balances = await adaptor.getBalances([params.address], assets);
        return { address: params.address, balances: renderBalances(assets, balances) };
      },
    }),
  ];
}
