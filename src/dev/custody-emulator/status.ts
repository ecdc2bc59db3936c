import { Router } from 'express';
import { z } from 'zod';
import { requireToken } from './auth.js';
import type { EmulatorContext, Revision } from './context.js';
import { queryFlag } from './listing.js';
import type { Operation, Vault } from './model.js';
import { parse, ProblemError, sendProblem } from './problem.js';

/**
 * What the emulator is, in its own status field: never in `version`, which clients parse as a
 * release (the published samples read the release with `/\d+\.\d+\.(\d+)\./` and gate features on it).
 */
export const EMULATOR_NOTICE = 'custody-emulator (plain private keys; development only, not a custody service)';
/** The build part of the release string; a real service answers e.g. `1.0.2103.39843`. */
const BUILD = 1;

/** The release string in the service's form, `1.0.<revision>.<build>`, for the revision a base serves. */
export const releaseVersion = (revision: Revision) => `${revision}.${BUILD}`;
const RELOAD_INTERVAL_MS = 5 * 60 * 1000;

/**
 * The service status in the shape of the declared revision (1.0.2106): `keyservice`, `db` with
 * `schemaVersion`, `nativeCrypto`, and no top-level `healthy` (the revision lists none), so
 * clients read health from the parts as they must with a real custody service.
 */
async function serviceStatus(ctx: EmulatorContext, revision: Revision, withDetails: boolean): Promise<{ healthy: boolean; body: Record<string, unknown> }> {
  const dbHealthy = await ctx.store.ping();
  const body: Record<string, unknown> = {
    version: releaseVersion(revision),
    emulator: EMULATOR_NOTICE,
    // The key service's part is `ukc` up to 1.0.1901 (1.0.1811 here), `keyservice` after.
    [revision === '1.0.1811' ? 'ukc' : 'keyservice']: { healthy: true },
    db: dbHealthy ? { healthy: true, schemaVersion: 'redis' } : { healthy: false, errorMessage: 'Redis does not answer', schemaVersion: 'redis' },
    nativeCrypto: { healthy: true },
  };
  if (withDetails && dbHealthy) {
    const [vaults, ops] = await Promise.all([ctx.store.list<Vault>('vault'), ctx.store.list<Operation>('operation')]);
    body.details = { vaults: vaults.length, operations: ops.length, pendingOperations: ops.filter((o) => o.status === 'PENDING').length };
  }
  return { healthy: dbHealthy, body };
}

/** `GET {mng}/status` (no token, as the spec shows it) and `POST {mng}/reloadconfig` (at most once per 5 minutes). */
export function statusRoutes(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  r.get('/status', async (req, res) => {
    const q = parse(z.object({ withDetails: queryFlag }).strict(), req.query, 'query');
    const status = await serviceStatus(ctx, revision, q.withDetails ?? false);
    res.status(status.healthy ? 200 : 500).json(status.body);
  });
  r.post('/reloadconfig', requireToken(ctx), async (_req, res) => {
    const allowed = await ctx.store.exclusive(async () => {
      const last = (await ctx.store.get<{ at: number }>('meta', 'reloadconfig'))?.at;
      if (last !== undefined && ctx.now() - last < RELOAD_INTERVAL_MS) return false;
      await ctx.store.put('meta', 'reloadconfig', { at: ctx.now() });
      return true;
    });
    const status = (await serviceStatus(ctx, revision, false)).body;
    if (allowed) return void res.json(status);
    // The spec's 420 carries the service status; the problem fields ride along.
    sendProblem(res, new ProblemError(420, 'too-many-requests', 'Too many requests', 'The configuration may be reloaded once per 5 minutes.'), status);
  });
  return r;
}
