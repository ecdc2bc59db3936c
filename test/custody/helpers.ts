import type { Server } from 'node:http';
import { Writable } from 'node:stream';
import express, { type Express, type RequestHandler } from 'express';
import pino, { type Logger } from 'pino';
import type { CallbackBody } from '../../src/dev/custody-emulator/index.js';
import { freePort } from '../../src/dev/free-port.js';
import { checkCallback, SIGNATURE_HEADER, TIMESTAMP_HEADER, type CallbackAuthFailure } from '../../src/security/callback-hmac.js';

export interface ReceivedCallback {
  ledgerId: string | undefined;
  auth: CallbackAuthFailure | undefined;
  body: CallbackBody;
  at: number;
}

export async function listen(app: Express): Promise<{ url: string; close(): Promise<void> }> {
  const port = await freePort();
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/**
 * A minimal signing-callback receiver: authenticates with the HMAC headers and records
 * what arrived. `statuses` answers the first requests with those codes (then 200).
 */
export async function startReceiver(secret: string, statuses: number[] = []) {
  const received: ReceivedCallback[] = [];
  let hits = 0;
  const app = express();
  app.post('/api/v1.0/sign_complete_callback', express.raw({ type: '*/*' }), ((req, res) => {
    hits++;
    const status = statuses.shift() ?? 200;
    if (status !== 200) return void res.status(status).end();
    const raw = req.body as Buffer;
    received.push({
      ledgerId: typeof req.query.ledgerId === 'string' ? req.query.ledgerId : undefined,
      auth: checkCallback(secret, raw, req.get(TIMESTAMP_HEADER), req.get(SIGNATURE_HEADER), 300),
      body: JSON.parse(raw.toString('utf8')),
      at: Date.now(),
    });
    res.status(200).json({});
  }) as RequestHandler);
  const server = await listen(app);
  return {
    ...server,
    received,
    hits: () => hits,
    /** Resolves once at least `n` callbacks were accepted. */
    async waitFor(n: number, timeoutMs = 3_000): Promise<ReceivedCallback[]> {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} callbacks, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 5));
      }
      return received;
    },
  };
}

/** A logger whose output the test can read, to prove what never reaches a log. */
export function capturingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk));
      cb();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines };
}

export const quietLogger = (): Logger => pino({ level: 'silent' });

export async function eventually<T>(fn: () => T | undefined, timeoutMs = 3_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = fn();
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 5));
  }
}
