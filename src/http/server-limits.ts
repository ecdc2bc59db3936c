import { createServer, type RequestListener, type Server } from 'node:http';
import type { Config } from '../config/load-config.js';
import { ENV } from '../config/env-spec.js';

/** How long a client may take and how many connections it may hold: HTTP_HEADERS_TIMEOUT_MS and the rest. */
export interface ServerLimits {
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
  /** 0 = no cap. */
  maxConnections: number;
}

/** The limits of the settings' defaults. */
export const DEFAULT_SERVER_LIMITS: ServerLimits = {
  headersTimeoutMs: Number(ENV.httpHeadersTimeoutMs.default),
  requestTimeoutMs: Number(ENV.httpRequestTimeoutMs.default),
  keepAliveTimeoutMs: Number(ENV.httpKeepAliveTimeoutMs.default),
  maxConnections: Number(ENV.httpMaxConnections.default),
};

export function serverLimitsOf(
  config: Pick<Config, 'httpHeadersTimeoutMs' | 'httpRequestTimeoutMs' | 'httpKeepAliveTimeoutMs' | 'httpMaxConnections'>,
): ServerLimits {
  return {
    headersTimeoutMs: config.httpHeadersTimeoutMs,
    requestTimeoutMs: config.httpRequestTimeoutMs,
    keepAliveTimeoutMs: config.httpKeepAliveTimeoutMs,
    maxConnections: config.httpMaxConnections,
  };
}

/**
 * An HTTP server that does not wait on its clients without end: a client that trickles its
 * headers is cut after `headersTimeoutMs`, one that trickles its body after `requestTimeoutMs`
 * (Node answers 408, `client-error.ts` puts it in the AppError shape), an idle keep-alive
 * connection is closed after `keepAliveTimeoutMs`, and connections beyond `maxConnections` are
 * closed as they arrive. Node checks the two timeouts every `connectionsCheckingInterval`
 * (30 s unless set): here a quarter of the shorter one, so they hold to within that.
 */
export function createLimitedServer(listener: RequestListener, limits: ServerLimits): Server {
  const shorter = Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs);
  const server = createServer(
    {
      headersTimeout: limits.headersTimeoutMs,
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      connectionsCheckingInterval: Math.max(25, Math.min(5_000, Math.floor(shorter / 4))),
    },
    listener,
  );
  if (limits.maxConnections > 0) server.maxConnections = limits.maxConnections;
  return server;
}
