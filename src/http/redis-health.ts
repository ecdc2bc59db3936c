import type { Redis } from 'ioredis';
import { profileKey } from '../platform/redis-keys.js';
import type { DependencyHealth } from './app-context.js';

/**
 * Whether Redis answers for the service's own keys. On a Redis Cluster every key of the
 * service sits in the one slot of its hash-tagged prefix, so on one master; PING goes to any
 * node and says nothing about that master, while a command on a key under the prefix is
 * routed to it. On a single Redis it is as cheap as PING.
 */
export async function redisHealth(redis: Redis, prefix: string): Promise<DependencyHealth> {
  await redis.exists(profileKey(prefix));
  return { healthy: true };
}
