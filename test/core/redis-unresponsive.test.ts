import { createServer, type Server, type Socket } from 'node:net';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectRedis } from '../../src/platform/redis.js';

describe('a Redis that accepts connections but never answers', () => {
  let server: Server;
  const sockets: Socket[] = [];
  let url = '';

  beforeAll(async () => {
    server = createServer((s) => sockets.push(s));
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    url = `redis://127.0.0.1:${(server.address() as { port: number }).port}`;
  });
  afterAll(async () => {
    sockets.forEach((s) => s.destroy());
    await new Promise<void>((r) => server.close(() => r()));
  });

  it('fails a request-path command after the command timeout instead of hanging', async () => {
    const redis = connectRedis(url, pino({ level: 'silent' }), 'unresponsive');
    // A hang would hold the test to its own timeout; the answer is the client's command timeout.
    const err = await redis.get('anything').catch((e: Error) => e);
    redis.disconnect();
    expect(err).toBeInstanceOf(Error);
    expect((err as Error).message).toMatch(/^Command timed out$/);
  });
});
