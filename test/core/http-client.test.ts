import { createServer, type IncomingMessage, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { createServer as createTcpServer, type Server as TcpServer, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/dev/free-port.js';
import { keepAliveFetch } from '../../src/platform/http-client.js';

/** The custody client's HTTP: fetch's answers over node:http, on a real local server. */
describe('keepAliveFetch', () => {
  const http = keepAliveFetch();
  let server: Server;
  let base: string;
  const seen: { method?: string; url?: string; headers: IncomingMessage['headers']; body: string; socket: unknown }[] = [];
  /** Requests the server holds unanswered until the test lets them go. */
  const held: (() => void)[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => (body += c));
      req.on('end', () => {
        seen.push({ method: req.method, url: req.url, headers: req.headers, body, socket: req.socket });
        if (req.url === '/hold') return void held.push(() => res.end());
        if (req.url === '/choices') {
          res.writeHead(300, { location: '/a' });
          return void res.end();
        }
        if (req.url === '/problem') {
          res.writeHead(429, { 'content-type': 'application/problem+json', 'retry-after': '7' });
          return void res.end('{"title":"Too Many Requests"}');
        }
        res.writeHead(200, { 'content-type': 'application/json', 'x-many': ['a', 'b'] });
        res.end(JSON.stringify({ echoed: body, method: req.method }));
      });
    });
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    for (const release of held) release();
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('sends the method, headers and body, and answers status, headers, text and JSON', async () => {
    const body = JSON.stringify({ amount: '1.25', note: 'ünïcode' });
    const res = await http(`${base}/sign?x=1`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer t' }, body });
    expect([res.status, res.ok]).toEqual([200, true]);
    expect(res.headers.get('Content-Type')).toBe('application/json');
    expect(res.headers.get('x-many')).toBe('a, b');
    expect(res.headers.get('x-none')).toBeNull();
    expect(await res.json()).toEqual({ echoed: body, method: 'POST' });
    const got = seen.at(-1)!;
    expect([got.method, got.url, got.body]).toEqual(['POST', '/sign?x=1', body]);
    expect(got.headers).toMatchObject({ authorization: 'Bearer t', 'content-length': String(Buffer.byteLength(body)) });
  });

  it('hands back a refusal as an answer, not an error', async () => {
    const res = await http(`${base}/problem`);
    expect([res.status, res.ok, res.headers.get('retry-after')]).toEqual([429, false, '7']);
    expect(await res.text()).toBe('{"title":"Too Many Requests"}');
    // Followed by nobody: a 3xx is the answer, and not ok.
    const choices = await http(`${base}/choices`);
    expect([choices.status, choices.ok, choices.headers.get('location')]).toEqual([300, false, '/a']);
  });

  it('keeps the connection for the next call', async () => {
    await http(`${base}/a`);
    await http(`${base}/b`);
    expect(seen.at(-1)!.socket).toBe(seen.at(-2)!.socket);
  });

  it('the idle limit is for idle connections: an answer slower than it still arrives, on the connection it was asked on', async () => {
    const idleMs = 20;
    const http = keepAliveFetch(64, idleMs);
    const pending = http(`${base}/hold`);
    await until(() => held.length > 0);
    // Held well past the idle limit: the connection is busy, not idle, and stays.
    await new Promise((r) => setTimeout(r, idleMs * 10));
    held.shift()!();
    expect((await pending).status).toBe(200);
    expect(seen.filter((s) => s.url === '/hold').at(-1)!.socket).toMatchObject({ destroyed: false });
  });

  it("rejects with the signal's reason when it aborts, as fetch does (a TimeoutError for AbortSignal.timeout)", async () => {
    const controller = new AbortController();
    const pending = http(`${base}/hold`, { signal: controller.signal });
    await until(() => held.length > 0);
    const reason = new DOMException('no answer', 'TimeoutError');
    controller.abort(reason);
    await expect(pending).rejects.toBe(reason);
    await expect(http(`${base}/a`, { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
  });

  it("rejects an unreachable server with the socket's code in the cause, and an unknown protocol", async () => {
    const err = (await http(`http://127.0.0.1:${await freePort()}/`).catch((e: unknown) => e)) as Error & { cause?: { code?: string } };
    expect(err).toBeInstanceOf(Error);
    expect(err.cause?.code).toBe('ECONNREFUSED');
    await expect(http('ftp://127.0.0.1/')).rejects.toThrow(/unsupported protocol ftp:/);
  });
});

/**
 * A server that closes kept connections its own way, over raw TCP: it answers requests with
 * `answer` and, where `drop` says so for the n-th request of a connection (from 1), closes
 * the connection instead of answering, as a server does whose idle close meets a request
 * (`'midway'`: after the start of an answer; `'garbage'`: it answers what is not HTTP).
 */
async function closingServer(
  drop: (nth: number) => boolean | 'midway' | 'garbage',
  answer = 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\nok',
) {
  const connections: { socket: Socket; requests: number; closedByClient: boolean }[] = [];
  const server: TcpServer = createTcpServer((socket) => {
    const c = { socket, requests: 0, closedByClient: false };
    connections.push(c);
    socket.on('end', () => (c.closedByClient = true));
    socket.on('error', () => {});
    let buffered = '';
    socket.on('data', (d: Buffer) => {
      buffered += d.toString('latin1');
      // GETs only: a request ends at its blank line.
      while (buffered.includes('\r\n\r\n')) {
        buffered = buffered.slice(buffered.indexOf('\r\n\r\n') + 4);
        c.requests++;
        const verdict = drop(c.requests);
        if (verdict === 'garbage') return void socket.write('NOT HTTP\r\n\r\n');
        if (verdict === 'midway') {
          socket.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nok');
          return void setImmediate(() => socket.resetAndDestroy());
        }
        if (verdict) return void socket.destroy();
        socket.write(answer);
      }
    });
  });
  const port = await freePort();
  await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${port}/`,
    connections,
    close: () => {
      for (const c of connections) c.socket.destroy();
      return new Promise((r) => server.close(r));
    },
  };
}

describe('keepAliveFetch and servers that close kept connections', () => {
  it('a request that meets the close of its kept connection goes once more, on a new one', async () => {
    const server = await closingServer((nth) => nth === 2);
    try {
      const http = keepAliveFetch();
      expect(await (await http(server.url)).text()).toBe('ok');
      expect(await (await http(server.url)).text()).toBe('ok');
      expect(server.connections.map((c) => c.requests)).toEqual([2, 1]);
    } finally {
      await server.close();
    }
  });

  it.each([
    { what: 'a request whose answer had begun (the server took it)', verdict: 'midway' as const, code: /^ECONNRESET$/ },
    { what: 'an answer that is not HTTP', verdict: 'garbage' as const, code: /^HPE_/ },
  ])('on a kept connection, $what is an error and not a reason to send again', async ({ verdict, code }) => {
    const server = await closingServer((nth) => (nth === 2 ? verdict : false));
    try {
      const http = keepAliveFetch();
      await http(server.url);
      const err = (await http(server.url).catch((e: unknown) => e)) as Error & { cause?: { code?: string } };
      expect(err.cause?.code).toMatch(code);
      // A request of its own, on a new connection, answered after any resend would have arrived.
      await keepAliveFetch()(server.url);
      expect(server.connections.map((c) => c.requests)).toEqual([2, 1]);
    } finally {
      await server.close();
    }
  });

  it('a request that fails on a new connection is not sent again', async () => {
    const server = await closingServer(() => true);
    try {
      const err = (await keepAliveFetch()(server.url).catch((e: unknown) => e)) as Error & { cause?: { code?: string } };
      expect(err.cause?.code).toBe('ECONNRESET');
      expect(server.connections.map((c) => c.requests)).toEqual([1]);
    } finally {
      await server.close();
    }
  });

  it('https: the connection is TLS, and a certificate nobody vouches for is refused', async () => {
    // A self-signed certificate for 127.0.0.1, made for this test (openssl req -x509, P-256, 100 years); not a secret.
    const server = createHttpsServer({ key: TEST_KEY, cert: TEST_CERT }, (_req, res) => res.end('ok'));
    const port = await freePort();
    await new Promise<void>((r) => server.listen(port, '127.0.0.1', r));
    try {
      const err = (await keepAliveFetch()(`https://127.0.0.1:${port}/`).catch((e: unknown) => e)) as Error & { cause?: { code?: string } };
      expect(err.cause?.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it("a kept connection is closed here before the server's Keep-Alive timeout ends it", async () => {
    const server = await closingServer(() => false, 'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: keep-alive\r\nkeep-alive: timeout=2\r\n\r\nok');
    try {
      await keepAliveFetch()(server.url);
      // The server never closes: only the client can end the connection.
      await until(() => server.connections[0]!.closedByClient);
      expect(server.connections).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});

const TEST_KEY = `-----BEGIN PRIVATE KEY-----
MIGHAgEAMBMGByqGSM49AgEGCCqGSM49AwEHBG0wawIBAQQgBVWfueKJbstQc/OT
1GOEF9tzyYHosaRNMQrv7jqiQuahRANCAATY50Rq7QuGfR18xWZbas4hduYFLbrd
l2yWvl+uJBdCeGitwdt4o7jn3pvjuG9xQg34zhs6rr7ErmtzHjqZtIMg
-----END PRIVATE KEY-----`;
const TEST_CERT = `-----BEGIN CERTIFICATE-----
MIIBkTCCATagAwIBAgIUJ1nl6Q3PW8TjxUrA1ZLPBONCbHUwCgYIKoZIzj0EAwIw
FDESMBAGA1UEAwwJMTI3LjAuMC4xMCAXDTI2MTEyODA5NDcxMVoYDzIxMjYxMTA0
MDk0NzExWjAUMRIwEAYDVQQDDAkxMjcuMC4wLjEwWTATBgcqhkjOPQIBBggqhkjO
PQMBBwNCAATY50Rq7QuGfR18xWZbas4hduYFLbrdl2yWvl+uJBdCeGitwdt4o7jn
3pvjuG9xQg34zhs6rr7ErmtzHjqZtIMgo2QwYjAdBgNVHQ4EFgQUbghADoGxWo3q
z8MXXnUQTxwusB4wHwYDVR0jBBgwFoAUbghADoGxWo3qz8MXXnUQTxwusB4wDwYD
VR0TAQH/BAUwAwEB/zAPBgNVHREECDAGhwR/AAABMAoGCCqGSM49BAMCA0kAMEYC
IQCJmze1iKnUCkrUSSWnKB6lqcUWW4Lq5A3D1OhMJIt+SQIhAM/F8WyzoTBBFp8a
Z5cu5rBPuecoJXF83rhTHRKjqem1
-----END CERTIFICATE-----`;

async function until(ok: () => boolean): Promise<void> {
  while (!ok()) await new Promise((r) => setImmediate(r));
}
