import { Redis } from 'ioredis';
import { claimProfile } from '../../config/profile-marker.js';
import { profileKey, servicePrefix } from '../../platform/redis-keys.js';
import { keysUnder, unlinkAll } from '../prefix-keys.js';

/**
 * Makes the sandbox's Redis data as fresh as its nodes, before anything of the sandbox writes:
 * every start begins with empty chains, so vaults, withdrawals, reservations, queues and the
 * custody emulator's state (`{prefix}:custody-emulator:`) of an earlier start would only point
 * at transactions and accounts that no longer exist.
 *
 * First the prefix is claimed for the sandbox profile (`claimProfile`): a prefix that holds
 * production data is refused here, with nothing written. Only a prefix that an earlier
 * sandbox start had already marked as the sandbox's is then emptied; one without a marker
 * (data older than the marker, perhaps production's) is claimed and left as it is. Keys of
 * a longer prefix with its own marker (`{prefix}:x:profile`) are left alone too.
 * Resolves with how many keys were deleted.
 */
export async function freshSandboxState(redisUrl: string, keyPrefix: string): Promise<number> {
  const prefix = servicePrefix(keyPrefix);
  const redis = new Redis(redisUrl, { maxRetriesPerRequest: 1, retryStrategy: () => null, lazyConnect: true });
  redis.on('error', () => undefined);
  try {
    await redis.connect();
    if ((await claimProfile(redis, prefix, 'sandbox')) === 'claimed') return 0;
    const keys = await keysUnder(redis, prefix);
    const marker = profileKey(prefix);
    // Prefixes of other deployments nested under this one (`byow-sandbox:x:`), by their markers.
    const candidates = keys.filter((k) => k !== marker && k.endsWith(':profile'));
    const values = candidates.length ? await redis.mget(...candidates) : [];
    const nested = candidates.filter((_, i) => values[i] === 'sandbox' || values[i] === 'production').map((k) => k.slice(0, -'profile'.length));
    const doomed = keys.filter((k) => k !== marker && !nested.some((n) => k.startsWith(n)));
    return await unlinkAll(redis, doomed);
  } finally {
    redis.disconnect();
  }
}
