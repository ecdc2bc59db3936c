import http from 'node:http';
import https from 'node:https';

/** What the service's HTTP clients give `fetch`: a method, string headers, a string body and a signal. */
export interface HttpInit {
  method?: string;
  headers?: Record<string, string>;
  body?: string;
  signal?: AbortSignal;
}

/** What they read of the answer: `fetch`'s Response answers all of it. */
export interface HttpAnswer {
  status: number;
  ok: boolean;
  headers: { get(name: string): string | null };
  text(): Promise<string>;
  json(): Promise<unknown>;
}

/** The part of `fetch` the service's clients use: the global `fetch`, a test's fake, or `keepAliveFetch`. */
export type HttpFetch = (url: string, init?: HttpInit) => Promise<HttpAnswer>;

/**
 * How long a kept connection may sit idle before it is closed here, unless the server's
 * `Keep-Alive: timeout=N` hint asks for less (node:http then closes it a second before the
 * server would). Node's agent only shortens a timeout it was given, so without one it kept idle
 * connections for ever, and a server's own idle close (Node's 5 s, a load balancer's) met the
 * next request on its way: "socket hang up", a 503 for the caller. `fetch` (undici) keeps 4 s.
 */
const IDLE_MS = 4_000;

/**
 * `fetch`'s answers over `node:http`/`node:https` with keep-alive agents of its own: a call costs
 * a third of the CPU `fetch` (undici) spends on it, 0.3-0.4 ms less a call on the bench's
 * machine (docs/performance.md). It rejects as `fetch` does where callers look: with the
 * signal's reason when it aborts (a `TimeoutError` for `AbortSignal.timeout`), otherwise with
 * an error whose `cause` carries the socket's `code` (ECONNREFUSED, ECONNRESET). It follows no
 * redirect: a 3xx is the answer. Idle sockets do not keep the process alive.
 *
 * A request reset on a kept connection before any answer began is sent once more, on a new
 * connection: the server closed that connection while it sat idle, the race node:http documents
 * for `request.reusedSocket`. Only then: a request reset on a new connection, or once its answer
 * began (the server took it), is the caller's to judge.
 */
export function keepAliveFetch(maxSockets = 64, idleMs = IDLE_MS): HttpFetch {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, maxSockets, timeout: idleMs }),
    'https:': new https.Agent({ keepAlive: true, maxSockets, timeout: idleMs }),
  };
  return (url, init = {}) =>
    new Promise<HttpAnswer>((resolve, reject) => {
      const target = new URL(url);
      const client = target.protocol === 'https:' ? https : target.protocol === 'http:' ? http : undefined;
      if (!client) return reject(new TypeError(`unsupported protocol ${target.protocol} in ${target.origin}`));
      const { signal } = init;
      if (signal?.aborted) return reject(signal.reason);
      const headers: Record<string, string | number> = { ...init.headers };
      if (init.body !== undefined) headers['content-length'] = Buffer.byteLength(init.body);
      const send = (agent: http.Agent | false): void => {
        let answered = false;
        const req = client.request(target, { method: init.method ?? 'GET', headers, agent, signal }, (res) => {
          answered = true;
          const chunks: Buffer[] = [];
          res.on('data', (c: Buffer) => chunks.push(c));
          res.on('error', fail);
          res.on('end', () => {
            const body = Buffer.concat(chunks).toString('utf8');
            const status = res.statusCode ?? 0;
            resolve({
              status,
              ok: status >= 200 && status < 300,
              headers: { get: (name) => joined(res.headers[name.toLowerCase()]) },
              text: async () => body,
              json: async () => JSON.parse(body) as unknown,
            });
          });
        });
        req.on('error', (e: NodeJS.ErrnoException) => {
          if (agent && req.reusedSocket && !answered && !signal?.aborted && e.code === 'ECONNRESET') return send(false);
          fail(e);
        });
        req.end(init.body);
      };
      function fail(e: Error): void {
        reject(signal?.aborted ? signal.reason : new Error(e.message, { cause: e }));
      }
      send(agents[target.protocol as 'http:' | 'https:']);
    });
}

function joined(value: string | string[] | undefined): string | null {
  if (value === undefined) return null;
  return Array.isArray(value) ? value.join(', ') : value;
}
