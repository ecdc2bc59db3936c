import { z } from 'zod';
import { isClusterUrl } from './redis.js';

/**
 * A URL whose scheme is one of `schemes` (with the colon, as `URL.protocol` has it). The
 * message names the scheme found, never the URL: RPC and Redis URLs often carry keys.
 */
export function urlWithScheme(schemes: readonly string[], alsoTaken?: string) {
  const wanted = schemes.map((s) => `${s}//`).join(' or ') + (alsoTaken ? ` (or ${alsoTaken})` : '');
  return z.string().superRefine((text, ctx) => {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      ctx.addIssue({ code: 'custom', message: `must be a URL starting with ${wanted}` });
      return;
    }
    if (!schemes.includes(url.protocol)) ctx.addIssue({ code: 'custom', message: `must start with ${wanted}, not ${url.protocol}//` });
  });
}

/** Node and API endpoints: JSON-RPC, Esplora, Bitcoin Core, Horizon, the custody service. */
export const httpUrl = () => urlWithScheme(['http:', 'https:']);

// Named with the cluster form, which REDIS_URL takes too.
const single = urlWithScheme(['redis:', 'rediss:'], 'redis+cluster://host:port,host:port');

/** One Redis (`redis://`, `rediss://`), or the seed nodes of a Redis Cluster (`redis+cluster://h:p,h:p`). */
export const redisUrl = () =>
  z.string().superRefine((text, ctx) => {
    if (isClusterUrl(text)) return;
    if (/^rediss?\+cluster:/.test(text)) {
      ctx.addIssue({ code: 'custom', message: 'a Redis Cluster URL is redis+cluster://host:port,host:port (or rediss+cluster://)' });
      return;
    }
    const r = single.safeParse(text);
    if (!r.success) for (const issue of r.error.issues) ctx.addIssue({ code: 'custom', message: issue.message });
  });
