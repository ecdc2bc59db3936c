import type { Redis } from 'ioredis';
import { ConfigError } from '../platform/config-error.js';
import { profileKey } from '../platform/redis-keys.js';

export type Profile = 'sandbox' | 'production';

/** `claimed`: this start marked the prefix (it had no marker); `held`: it was already marked for this profile. */
export type ProfileClaim = 'claimed' | 'held';

/**
 * Marks the key prefix (`byow:`, with its colon) as holding `profile`'s data, or refuses
 * when it already holds the other profile's: sandbox vaults and operations must never show
 * up in production, nor production's in the sandbox. The first start on a prefix claims it.
 */
export async function claimProfile(redis: Redis, prefix: string, profile: Profile): Promise<ProfileClaim> {
  const key = profileKey(prefix);
  if ((await redis.set(key, profile, 'NX')) === 'OK') return 'claimed';
  const found = await redis.get(key);
  if (found === profile) return 'held';
  const bare = prefix.replace(/:$/, '');
  throw new ConfigError([
    `REDIS_PREFIX '${bare}' holds data of the ${found ?? 'unknown'} profile (key ${key}); this ${profile} start refuses to use it. ` +
      `Give this deployment its own prefix (REDIS_PREFIX) or its own Redis database.`,
  ]);
}
