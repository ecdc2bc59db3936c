import { z } from 'zod';
import type { AppContext, DependencyHealth } from '../app-context.js';
import { redisHealth } from '../redis-health.js';
import { healthSchema } from '../schemas.js';
import { defineRoute } from '../route.js';
import { HealthCache } from '../health-cache.js';

const assetSchema = z.object({ symbol: z.string(), decimals: z.number(), native: z.boolean(), contract: z.string().optional() });

const configResponse = z.object({
  version: z.string(),
  ledgers: z.array(
    z.object({
      ledgerId: z.string(),
      family: z.string(),
      network: z.string(),
      scheme: z.string(),
      nativeAsset: assetSchema,
      assets: z.array(assetSchema),
      feeLevels: z.array(z.string()),
      addressFormats: z.array(z.string()),
      confirmations: z.number(),
    }),
  ),
});

const ledgerHealthSchema = healthSchema.extend({ height: z.number().optional(), network: z.string().optional(), wrongNetwork: z.boolean().optional() });

const statusResponse = z.object({
  version: z.string(),
  healthy: z.boolean(),
  redis: healthSchema,
  ledgers: z.record(z.string(), ledgerHealthSchema),
  dependencies: z.record(z.string(), healthSchema),
});

/** Bounds a health probe so a status route answers even when a dependency hangs. */
export async function probe<T extends DependencyHealth>(fn: () => Promise<T>, timeoutMs: number): Promise<T | DependencyHealth> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<DependencyHealth>((resolve) => {
    timer = setTimeout(() => resolve({ healthy: false, errorMessage: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([fn().catch((e: Error) => ({ healthy: false, errorMessage: e.message })), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A dependency's check bounded by HEALTH_TIMEOUT_MS, shared through the context's cache
 * (`health-cache.ts`) under `key`: concurrent and recent callers get the same answer.
 */
export function sharedProbe<T extends DependencyHealth>(ctx: AppContext, key: string, fn: () => Promise<T>): Promise<T | DependencyHealth> {
  ctx.healthCache ??= new HealthCache(ctx.config.healthCacheMs);
  return ctx.healthCache.get(key, () => probe(fn, ctx.config.healthTimeoutMs));
}

export function serviceRoutes(ctx: AppContext) {
  return [
    defineRoute({
      method: 'get',
      path: '/config',
      summary: 'Configured ledgers with their assets, fee levels and address formats',
      tags: ['wallet'],
      response: configResponse,
      handler: () => ({
        version: ctx.config.version,
        ledgers: ctx.registry.list().map((a) => ({
          ledgerId: a.ledgerId,
          family: a.family,
          network: a.network,
          scheme: a.scheme,
          nativeAsset: a.nativeAsset,
          assets: a.assets(),
          feeLevels: a.feeLevels(),
          addressFormats: a.addressFormats(),
          confirmations: a.confirmations,
        })),
      }),
    }),
    defineRoute({
      method: 'get',
      path: '/status',
      summary: 'Version and health of every dependency; answers 200 even when one is down',
      tags: ['wallet'],
      response: statusResponse,
      handler: async () => {
        const redisCheck = sharedProbe(ctx, 'redis', () => redisHealth(ctx.redis, ctx.prefix));
        const ledgerChecks = ctx.registry.list().map(async (a) => [a.ledgerId, await sharedProbe(ctx, `ledger:${a.ledgerId}`, () => a.health())] as const);
        const depChecks = Object.entries(ctx.healthChecks).map(async ([name, fn]) => [name, await sharedProbe(ctx, `dependency:${name}`, fn)] as const);
        const [redis, ledgers, deps] = await Promise.all([redisCheck, Promise.all(ledgerChecks), Promise.all(depChecks)]);
        const all = [redis, ...ledgers.map(([, h]) => h), ...deps.map(([, h]) => h)];
        return {
          version: ctx.config.version,
          healthy: all.every((h) => h.healthy),
          redis,
          ledgers: Object.fromEntries(ledgers),
          dependencies: Object.fromEntries(deps),
        };
      },
    }),
  ];
}
