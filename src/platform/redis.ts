import { Cluster, Redis, type RedisOptions } from 'ioredis';
import type { Logger } from 'pino';
import type { Socket } from 'node:net';

/**
 * Commands written in one turn of the event loop leave in one socket write (cork, then uncork
 * in the loop's check phase: after every I/O callback of that turn, so the commands of many
 * requests that arrived together go as one), as a pipeline would, in the order they were
 * written. A worker sends many small commands from concurrent jobs, an API many small commands
 * from concurrent requests; one write each was a fifth of the worker's time in a drain (a
 * write to the socket costs more than the command's own work). Coalescing per tick took a tenth
 * off the worker's CPU per withdrawal; per turn of the loop, the API's CPU per callback fell by
 * another 7 % (0.283–0.314 → 0.262–0.275 ms, `--only=ingest`).
 * A cluster client keeps one connection per node and is left as is.
 */
function coalesceWrites(socket: Socket): void {
  let corked = false;
  const write = socket.write.bind(socket) as (...a: unknown[]) => boolean;
  (socket as unknown as { write: (...a: unknown[]) => boolean }).write = (...args: unknown[]) => {
    if (!corked) {
      corked = true;
      socket.cork();
      setImmediate(() => {
        corked = false;
        socket.uncork();
      });
    }
    return write(...args);
  };
}

/** `redis+cluster://host:port,host:port/` (or `rediss+cluster://` for TLS) names the seed nodes of a Redis Cluster. */
const CLUSTER_URL = /^(rediss?)\+cluster:\/\/(?:([^@/]*)@)?([^/?#]+)\/?$/;

export function isClusterUrl(url: string): boolean {
  return CLUSTER_URL.test(url);
}

/**
 * A client of a single Redis or of a Redis Cluster, by URL. Every multi-key command and Lua
 * script of the service keeps its keys under the one configured prefix, so with a hash-tagged
 * prefix (`{byow}`) they all land in one slot and hold on a cluster as on one server.
 * The cluster client is typed as the single-server one: the commands the service uses are the same.
 */
export function redisClient(url: string, options: RedisOptions): Redis {
  const m = CLUSTER_URL.exec(url);
  if (!m) {
    const r = new Redis(url, options);
    r.on('connect', () => coalesceWrites((r as unknown as { stream: Socket }).stream));
    return r;
  }
  const [, scheme, auth, hosts] = m as unknown as [string, string, string | undefined, string];
  const [username, password] = auth ? auth.split(':').map(decodeURIComponent) : [];
  const nodes = hosts.split(',').map((h) => {
    const [host, port] = h.split(':');
    return { host: host as string, port: Number(port ?? 6379) };
  });
  const cluster = new Cluster(nodes, {
    redisOptions: { ...options, ...(username ? { username } : {}), ...(password ? { password } : {}), ...(scheme === 'rediss' ? { tls: {} } : {}) },
    // BullMQ's blocking commands and the request paths both want a client that keeps retrying.
    clusterRetryStrategy: (times) => Math.min(times * 200, 2000),
    enableOfflineQueue: options.enableOfflineQueue ?? true,
  });
  return cluster as unknown as Redis;
}

/**
 * Closes a client once the replies to the commands already sent have come: QUIT is answered
 * after them, where a disconnect rejects each with "Connection is closed." and a command nobody
 * awaits any more (one a closed queue worker left in flight) becomes an unhandled rejection. A
 * client that is not connected has nothing in flight and would hold a QUIT until Redis is back,
 * so it is disconnected.
 */
export async function closeClient(client: Redis): Promise<void> {
  if (client.status !== 'ready') return void client.disconnect();
  const ended = new Promise((resolve) => client.once('end', resolve));
  await client.quit().catch(() => client.disconnect());
  await ended;
}

/**
 * Whether every key starting with `prefix` hashes by the same tag. Redis's rule: the tag is
 * what lies between the first `{` and the first `}` after it; when that is empty (or there is
 * none) the whole key is hashed. So `{byow}` and `a{byow}b` hold; `{}{byow}` and `byow}` don't.
 */
function prefixHasHashTag(prefix: string): boolean {
  const open = prefix.indexOf('{');
  const close = open < 0 ? -1 : prefix.indexOf('}', open + 1);
  return close > open + 1;
}

/** Why a key prefix will not hold on a cluster, or undefined when it will (or no cluster is used). */
export function clusterPrefixProblem(url: string, prefix: string): string | undefined {
  if (!isClusterUrl(url) || prefixHasHashTag(prefix)) return undefined;
  const tag = prefix.replace(/[{}]/g, '') || 'byow';
  return `REDIS_PREFIX must contain a hash tag such as {${tag}} on a Redis Cluster, so every script's keys share one slot: Redis hashes the text between the first { and the next }, or the whole key when that is empty`;
}

/**
 * A Redis connection for request paths: commands fail fast while Redis is down (so the API
 * answers 503 instead of hanging), and the client keeps reconnecting in the background.
 */
export function connectRedis(url: string, logger: Logger, name: string): Redis {
  const redis = redisClient(url, {
    connectionName: name,
    maxRetriesPerRequest: 1,
    // A Redis that accepts connections but never answers must not hang requests.
    commandTimeout: 5000,
    enableOfflineQueue: true,
    retryStrategy: (times) => Math.min(times * 200, 2000),
  });
  let down = false;
  redis.on('error', (err: Error) => {
    if (!down) logger.error({ err: err.message }, 'redis connection error');
    down = true;
  });
  redis.on('ready', () => {
    if (down) logger.info('redis connection restored');
    down = false;
  });
  return redis;
}
