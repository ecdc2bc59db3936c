import { Agent, createServer, request, type IncomingHttpHeaders, type RequestListener, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { prepareGracefulClose, type CloseGracefully } from '../../src/http/graceful-close.js';
import { until } from '../pipeline/support.js';

/**
 * The API's shutdown (src/app/processes.ts): on SIGTERM a rolling deploy must not cut a
 * withdrawal request or a signing callback half-way. Real servers and sockets, with handlers
 * held open until the test lets them answer.
 */

const BODY = 'x'.repeat(256 * 1024);

/** The test's hold on a `/slow` request: it learns when the handler has it and says when to answer. */
function hold() {
  let reached!: () => void;
  let answer!: () => void;
  const arrived = new Promise<void>((r) => (reached = r));
  const released = new Promise<void>((r) => (answer = r));
  return { arrived, answer, reached, released };
}
type Hold = ReturnType<typeof hold>;

/**
 * Node's keep-alive timeout far beyond any wait of these tests: a close held by an idle
 * keep-alive connection then never resolves within them, however slow the machine.
 */
const KEEP_ALIVE_MS = 120_000;

/** `closing`, or a failure once `deadlineMs` have passed (well short of KEEP_ALIVE_MS). */
function closesWithin<T>(closing: Promise<T>, deadlineMs = 30_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>(
    (_, reject) => (timer = setTimeout(() => reject(new Error(`the close was still waiting after ${deadlineMs} ms`)), deadlineMs)),
  );
  return Promise.race([closing, late]).finally(() => clearTimeout(timer));
}

async function listening(handler: RequestListener): Promise<{ server: Server; port: number; close: CloseGracefully }> {
  const server = createServer(handler);
  server.keepAliveTimeout = KEEP_ALIVE_MS;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as AddressInfo).port, close: prepareGracefulClose(server) };
}

/** Answers `/slow` once `slow` lets it, everything else at once; both with BODY. */
function slowAndFast(slow: Hold): RequestListener {
  return (req, res) => {
    if (req.url !== '/slow') return void res.end(BODY);
    slow.reached();
    void slow.released.then(() => res.end(BODY));
  };
}

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  body: string;
}

function get(port: number, path: string, agent: Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request({ host: '127.0.0.1', port, path, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
      res.on('error', reject);
    })
      .on('error', reject)
      .end();
  });
}

/** Whether a new TCP connection is accepted. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    socket.once('connect', () => resolve(!socket.destroy()));
    socket.once('error', () => resolve(false));
  });
}

/** Splits what a server sent on one connection into responses (Content-Length framed). */
function responses(raw: string): { head: string; body: string }[] {
  const out: { head: string; body: string }[] = [];
  let rest = raw;
  while (rest.length) {
    const end = rest.indexOf('\r\n\r\n');
    if (end < 0) break;
    const head = rest.slice(0, end);
    const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
    out.push({ head, body: rest.slice(end + 4, end + 4 + length) });
    rest = rest.slice(end + 4 + length);
  }
  return out;
}

const settle = <T>(p: Promise<T>) =>
  p.then(
    (value) => ({ value }),
    (error: NodeJS.ErrnoException) => ({ error }),
  );

describe('prepareGracefulClose', () => {
  it('answers a request in flight in full, with Connection: close, and refuses new connections meanwhile', async () => {
    const slow = hold();
    const { port, close } = await listening(slowAndFast(slow));
    const agent = new Agent({ keepAlive: true });
    const inFlight = settle(get(port, '/slow', agent));
    await slow.arrived;
    const closed = close(10_000);
    expect(await connects(port)).toBe(false);
    slow.answer();
    const { value, error } = (await inFlight) as { value?: Answer; error?: Error };
    expect(error?.message).toBeUndefined();
    expect(value?.status).toBe(200);
    expect(value?.body).toBe(BODY);
    expect(value?.headers.connection).toBe('close');
    // Not held by the keep-alive timeout of the connection just answered.
    expect(await closesWithin(closed)).toEqual({ cut: 0 });
    agent.destroy();
  });

  it('ends idle keep-alive connections at once', async () => {
    const { port, close } = await listening(slowAndFast(hold()));
    const agent = new Agent({ keepAlive: true });
    expect((await get(port, '/fast', agent)).status).toBe(200);
    // Neither the keep-alive timeout nor the grace period: the idle connection ends at once.
    expect(await closesWithin(close(KEEP_ALIVE_MS))).toEqual({ cut: 0 });
    agent.destroy();
  });

  it('answers a request sent on a busy connection after the close began, as the last on it', async () => {
    const slow = hold();
    const { port, close } = await listening(slowAndFast(slow));
    const socket = connect(port, '127.0.0.1');
    let raw = '';
    socket.setEncoding('utf8').on('data', (d: string) => (raw += d));
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write('GET /slow HTTP/1.1\r\nHost: test\r\n\r\n');
    await slow.arrived;
    const closed = close(10_000);
    socket.write('GET /fast HTTP/1.1\r\nHost: test\r\n\r\n');
    // The server has the second request (queued behind the first) before the first is answered.
    await until('the request sent after the close began', () => close.following() === 2);
    slow.answer();
    await ended;
    const [first, second, ...more] = responses(raw);
    expect(first?.head).toMatch(/^HTTP\/1\.1 200/);
    expect(first?.head).not.toMatch(/connection: close/i);
    expect(first?.body).toBe(BODY);
    expect(second?.head).toMatch(/^HTTP\/1\.1 200/);
    expect(second?.head).toMatch(/connection: close/i);
    expect(second?.body).toBe(BODY);
    expect(more).toEqual([]);
    expect(await closed).toEqual({ cut: 0 });
  });

  it('ends a connection whose answer was already streaming when the close began, once it is complete', async () => {
    let finish!: () => void;
    let streaming!: () => void;
    const started = new Promise<void>((r) => (streaming = r));
    const { port, close } = await listening((_req, res) => {
      res.writeHead(200, { 'content-length': String(BODY.length * 2) });
      res.write(BODY);
      finish = () => res.end(BODY);
      streaming();
    });
    const agent = new Agent({ keepAlive: true });
    const inFlight = get(port, '/stream', agent);
    // Its headers went out as keep-alive before the close began.
    await started;
    const closed = close(10_000);
    finish();
    const answer = await inFlight;
    expect(answer.body).toBe(BODY + BODY);
    // Not held by the keep-alive timeout once the answer is complete.
    expect(await closesWithin(closed)).toEqual({ cut: 0 });
    agent.destroy();
  });

  it('cuts a request still in flight after the grace period, and resolves anyway', async () => {
    const never = hold();
    const { port, close } = await listening(slowAndFast(never));
    const inFlight = settle(get(port, '/slow', new Agent({ keepAlive: true })));
    await never.arrived;
    const started = Date.now();
    const outcome = await closesWithin(close(300));
    // The grace period was given in full before the cut.
    expect(Date.now() - started).toBeGreaterThanOrEqual(290);
    expect(outcome).toEqual({ cut: 1 });
    const { error } = (await inFlight) as { error?: NodeJS.ErrnoException };
    expect(error?.code).toBe('ECONNRESET');
  });
  it('forgets requests queued behind another on a connection the client reset: nothing is held or counted as cut', async () => {
    const slow = hold();
    const { server, port, close } = await listening(slowAndFast(slow));
    let requests = 0;
    let closedConnections = 0;
    server.on('request', () => requests++);
    server.on('connection', (s) => s.once('close', () => closedConnections++));
    // Each client pipelines a fast request behind a slow one and goes away once the server has
    // both; the slow ones are answered after every connection is gone on the server's side too.
    for (let i = 1; i <= 20; i++) {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /fast HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.on('error', () => undefined);
      await until(`both requests of client ${i}`, () => requests === 2 * i);
      socket.destroy();
    }
    await until('every connection closed on the server', () => closedConnections === 20);
    slow.answer();
    // Nothing may still be held (each held its request and its body).
    await until('nothing followed', () => close.following() === 0);
    expect(await close(200)).toEqual({ cut: 0 });
  });
});
