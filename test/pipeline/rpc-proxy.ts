/** A JSON-RPC proxy in front of a test node (not a test file itself). */
import { createServer, type Server } from 'node:http';

export interface RpcCall {
  id: number;
  method: string;
  params?: unknown[];
}

/** What the node in front of the service does with one request: answer each call with this error, lose its own answer, or nothing special. */
export type Fault = { error: { code: number; message: string } } | 'lose-answer' | undefined;

export interface RpcProxy {
  url: string;
  /** Sees each request's calls; may answer them with an error without passing them on, or pass them on and lose the answer. */
  fault: (calls: RpcCall[]) => Fault;
  close(): Promise<void>;
}

/**
 * A JSON-RPC proxy in front of the chain: `fault` sees each request's calls and may answer them
 * with an error without passing them on (a refusal, a failed lookup), or pass them on and lose the
 * answer on the way back (HTTP 502 after the node took them).
 */
export async function rpcProxy(target: string): Promise<RpcProxy> {
  const proxy: RpcProxy = {
    url: '',
    fault: () => undefined,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const body = JSON.parse(raw) as RpcCall | RpcCall[];
      const calls = [body].flat();
      const fault = proxy.fault(calls);
      if (fault !== undefined && fault !== 'lose-answer') {
        const answers = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, error: fault.error }));
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
        return;
      }
      const upstream = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
      const text = await upstream.text();
      if (fault === 'lose-answer') res.writeHead(502).end('bad gateway');
      else res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return proxy;
}

/** Whether the request is one call of `method`. */
export const only = (calls: RpcCall[], method: string): boolean => calls.length === 1 && calls[0]!.method === method;
