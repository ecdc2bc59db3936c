/** The multi-process scenario again, on a three-master Redis Cluster with a hash-tagged prefix. */
import { startRedisCluster } from '../../test/helpers/redis-cluster.js';
import type { Tally } from '../withdrawals.js';
import { multiProcess, type ScenarioContext } from './multi-process.js';

export async function redisCluster(ctx: ScenarioContext): Promise<Tally> {
  const cluster = await startRedisCluster();
  try {
    return await multiProcess({ ...ctx, redisUrl: cluster.url }, { name: 'redis-cluster', prefix: `{faults-${ctx.run}}` });
  } finally {
    await cluster.stop();
  }
}
