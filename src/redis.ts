import { Redis } from 'ioredis';
import type { Logger } from 'pino';

/**
 * A Redis connection for request paths: commands fail fast while Redis is down (so the API
 * answers 503 instead of hanging), and the client keeps reconnecting in the background.
 */
export function connectRedis(url: string, logger: Logger, name: string): Redis {
  const redis = new Redis(url, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    // A Redis that accepts connections but never answers must not hang requests.
    commandTimeout: 5000,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let down = false;
  redis.on('error', (err) => {
    if (!down) logger.error({ err: err.message }, 'redis connection error');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
  });
  return redis;
}
