import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface CloseOutcome {
  /** Requests still unanswered when the grace period ran out, whose connections were cut. */
  cut: number;
}

/** Closes the server gracefully, giving requests in flight up to `graceMs` to be answered. */
export type CloseGracefully = ((graceMs: number) => Promise<CloseOutcome>) & {
  /** Requests it follows now: those whose connection is open and whose answer is not complete. */
  readonly following: () => number;
};

/**
 * Call as soon as `server` listens; returns the function that closes it gracefully. That
 * function stops accepting connections, ends the idle keep-alive ones, lets the requests in
 * flight be answered, and cuts only those still unanswered after `graceMs`; it resolves once
 * every connection is gone, so what the requests use (Redis, the custody client) can be
 * closed after it. Calling it again returns the same close.
 *
 * Requests are tracked from the start because a response begun before the close must still
 * learn of it: the last one on each connection says `Connection: close` and its connection
 * ends after it, so the client sends its next request elsewhere instead of onto a connection
 * about to be cut. (Node's own `close()` answers it `keep-alive`, accepts further requests on
 * that connection, and waits out the keep-alive timeout.)
 */
export function prepareGracefulClose(server: Server): CloseGracefully {
  const inFlight = new Set<ServerResponse>();
  let closing: Promise<CloseOutcome> | undefined;

  const connectionOf = (res: ServerResponse): Socket => res.req.socket;

  // Only the last response of a connection may say close: one pipelined behind it would be
  // handled and then lost with the connection. Set order is arrival order.
  const markLastResponses = () => {
    const last = new Map<Socket, ServerResponse>();
    for (const res of inFlight) last.set(connectionOf(res), res);
    for (const res of inFlight) {
      if (res.headersSent) continue;
      if (last.get(connectionOf(res)) === res) res.setHeader('Connection', 'close');
      else res.removeHeader('Connection');
    }
  };

  // A response whose headers went out as keep-alive before the close leaves its connection
  // idle when it finishes: end it then rather than at the keep-alive timeout.
  const endIdleAfter = (res: ServerResponse) => res.once('finish', () => server.closeIdleConnections());

  // Prepended so it runs before the app, which may answer in the same tick.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    inFlight.add(res);
    // A response queued behind another on a connection the client reset never closes itself:
    // its connection's end drops it too (the request's own 'close' comes when its body ends).
    const socket = req.socket;
    const drop = () => {
      inFlight.delete(res);
      socket.off('close', drop);
    };
    res.once('close', drop);
    socket.once('close', drop);
    // Arrived on a connection that was busy when the close began: answered, and the last on it.
    if (closing) {
      endIdleAfter(res);
      markLastResponses();
    }
  });

  const close = (graceMs: number) =>
    new Promise<CloseOutcome>((resolve) => {
      for (const res of inFlight) endIdleAfter(res);
      markLastResponses();
      let cut = 0;
      const deadline = setTimeout(() => {
        cut = [...inFlight].filter((res) => !res.writableFinished).length;
        server.closeAllConnections();
      }, graceMs);
      // Runs once the last connection is gone (with an error when the server was not
      // listening: nothing to wait for then either).
      server.close(() => {
        clearTimeout(deadline);
        resolve({ cut });
      });
      // close() does this itself since Node 19; explicit, as the keep-alive connections with
      // nothing in flight are what would otherwise hold the close for their idle timeout.
      server.closeIdleConnections();
    });

  return Object.assign((graceMs: number) => (closing ??= close(graceMs)), { following: () => inFlight.size });
}
