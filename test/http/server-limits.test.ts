import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestService, type TestService } from '../helpers/service.js';
import { startWorkerHealthServer, type WorkerHealthDeps } from '../../src/http/worker-health-server.js';

const LEDGERS = { ethdev: { rpcUrl: 'http://127.0.0.1:9' } };

/** A raw connection to the service, with everything it received and a promise of its close. */
function open(url: string): { socket: Socket; connected: Promise<void>; closed: Promise<string> } {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  let received = '';
  socket.setEncoding('utf8');
  socket.on('data', (chunk: string) => (received += chunk));
  socket.on('error', () => undefined);
  const connected = new Promise<void>((resolve) => socket.once('connect', () => resolve()));
  const closed = new Promise<string>((resolve) => socket.once('close', () => resolve(received)));
  return { socket, connected, closed };
}

describe('a client that trickles its headers', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(LEDGERS, { env: { HTTP_HEADERS_TIMEOUT_MS: '300', HTTP_REQUEST_TIMEOUT_MS: '600' } });
  });
  afterAll(() => svc.stop());

  it('is cut after HTTP_HEADERS_TIMEOUT_MS with a 408 in the AppError shape', async () => {
    const client = open(svc.url);
    await client.connected;
    client.socket.write('GET /api/v1.0/config HTTP/1.1\r\nHost: localhost\r\n');
    // One more header line every 50 ms, never the blank line that ends them.
    let n = 0;
    const trickle = setInterval(() => {
      if (!client.socket.destroyed) client.socket.write(`X-Slow-${n++}: 1\r\n`);
    }, 50);
    try {
      const received = await client.closed;
      expect(received).toMatch(/^HTTP\/1\.1 408/);
      expect(received).toContain('"errCode":"ERR_REQUEST_TIMEOUT"');
    } finally {
      clearInterval(trickle);
    }
  });
});

describe('the connection cap', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService(LEDGERS, { env: { HTTP_MAX_CONNECTIONS: '3' } });
  });
  afterAll(() => svc.stop());

  it('closes connections beyond HTTP_MAX_CONNECTIONS as they arrive, and serves the ones it holds', async () => {
    const held = [open(svc.url), open(svc.url), open(svc.url)];
    await Promise.all(held.map((c) => c.connected));
    // The server accepts in order: once the fourth is seen, the three are counted.
    const extra = open(svc.url);
    await extra.connected;
    extra.socket.write('GET /api/v1.0/config HTTP/1.1\r\nHost: localhost\r\n\r\n');
    expect(await extra.closed).toBe('');
    const first = held[0]!;
    first.socket.write('GET /api/v1.0/config HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n');
    expect(await first.closed).toMatch(/^HTTP\/1\.1 200/);
    for (const c of held) c.socket.destroy();
  });

  it('the worker health server gets the same limits', async () => {
    const server = await startWorkerHealthServer({} as WorkerHealthDeps, 0, '127.0.0.1', {
      headersTimeoutMs: 1000,
      requestTimeoutMs: 2000,
      keepAliveTimeoutMs: 3000,
      maxConnections: 7,
    });
    try {
      expect([server.headersTimeout, server.requestTimeout, server.keepAliveTimeout, server.maxConnections]).toEqual([1000, 2000, 3000, 7]);
    } finally {
      server.close();
    }
  });
});
