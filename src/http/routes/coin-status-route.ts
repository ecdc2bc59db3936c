import { z } from 'zod';
import { unknownValue } from '../../platform/errors.js';
import type { LedgerHealth } from '../../ledger/adaptor.js';
import type { AppContext, DependencyHealth } from '../app-context.js';
import { defineRoute } from '../route.js';
import { sharedProbe } from './service-routes.js';
import { API_BASE } from '../../platform/api-base.js';

const partHealth = z.object({ healthy: z.boolean(), errorMessage: z.string().optional() });

/** Spec "Coin-type status (revision 1.0.1811)": every member optional there; always present here. */
export const coinStatusSchema = z
  .object({
    version: z.string(),
    ledger: partHealth.extend({
      height: z.number().optional().describe('withDetails=true: latest height the back end reports'),
      network: z.string().optional().describe('withDetails=true: the network the back end reports'),
    }),
    custody: partHealth,
  })
  .meta({ id: 'CoinTypeStatus' });

const withDetails = z
  .enum(['true', 'false'])
  .optional()
  .transform((v) => v === 'true')
  .describe('Adds the back end height and network to `ledger`');

/**
 * GET {base}/{coinType}/api/v1.0/status of revision 1.0.1811, for every configured ledger id
 * and built-in id: the ledger back end and the custody service. 500 with the same body when
 * either is not operational (a built-in id without a back end never is).
 */
export function coinStatusRoute(ctx: AppContext) {
  return defineRoute({
    method: 'get',
    base: '',
    path: `/:coinType${API_BASE}/status`,
    summary: 'Coin-type status (revision 1.0.1811): the ledger back end and the custody service; 500 when not operational',
    tags: ['wallet'],
    // Any length: an unknown one gets the 422 naming the valid ids.
    params: z.object({ coinType: z.string().min(1).describe('A configured ledger id or a built-in id (btc, btctest, eth, ethtest, stellar, stellartest, …)') }),
    query: z.object({ withDetails }),
    response: coinStatusSchema,
    errors: [422],
    responses: { 500: { description: 'The ledger back end or the custody service is not operational', schema: coinStatusSchema } },
    handler: async ({ params, query, res }) => {
      const adaptor = ctx.registry.find(params.coinType);
      if (!adaptor && !ctx.registry.builtInIds().includes(params.coinType.toLowerCase())) {
        throw unknownValue('coin type', params.coinType, ctx.registry.knownIds());
      }
      const configured = ctx.registry.ids().join(', ') || '(none)';
      const custodyCheck = ctx.healthChecks.custody;
      const [ledger, custody]: [LedgerHealth, DependencyHealth] = await Promise.all([
        adaptor
          ? sharedProbe(ctx, `ledger:${adaptor.ledgerId}`, () => adaptor.health())
          : { healthy: false, errorMessage: `No back end is configured for '${params.coinType}' on this service; configured ledgers: ${configured}` },
        custodyCheck
          ? sharedProbe(ctx, 'dependency:custody', custodyCheck)
          : { healthy: false, errorMessage: 'No custody connector is configured in this process' },
      ]);
      const { healthy, errorMessage, height, network } = ledger;
      const body = {
        version: ctx.config.version,
        ledger: { healthy, ...(errorMessage ? { errorMessage } : {}), ...(query.withDetails ? { height, network } : {}) },
        custody: { healthy: custody.healthy, ...(custody.errorMessage ? { errorMessage: custody.errorMessage } : {}) },
      };
      if (!healthy || !custody.healthy) res.status(500).json(body);
      return body;
    },
  });
}
