import { z } from 'zod';

/**
 * A URL whose scheme is one of `schemes` (with the colon, as `URL.protocol` has it). The
 * message names the scheme found, never the URL: RPC and Redis URLs often carry keys.
 */
export function urlWithScheme(schemes: readonly string[]) {
  const wanted = schemes.map((s) => `${s}//`).join(' or ');
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

export const redisUrl = () => urlWithScheme(['redis:', 'rediss:']);
