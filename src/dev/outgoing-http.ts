import http, { type IncomingMessage } from 'node:http';

/**
 * A look at the HTTP requests a service process makes through `node:http` (its HTTP clients,
 * `keepAliveFetch`, to the ledger nodes and the custody service), for the bench's counters and
 * the tests that stop a worker at the moment it sends a transaction. Loaded with `--import`
 * into a process the bench or a test starts; the service itself never calls it.
 */

/** A request as its body is written: what the watcher judges. */
export interface OutgoingRequest {
  method: string;
  url: string;
  body: string;
}

/**
 * What becomes of a request: sent as is (undefined), never sent (`hold`), or sent with its
 * answer handed to `answered` first, which gives it to the client by calling `deliver` (or
 * keeps it from the client for good by not calling it).
 */
export type Watch = { hold: true } | { answered(res: IncomingMessage, deliver: () => void): void } | undefined;

/** Calls `watch` with every `http.request` of this process once its body is written. */
export function watchHttpRequests(watch: (req: OutgoingRequest) => Watch): void {
  const realRequest = http.request;
  const patched = (...args: unknown[]): http.ClientRequest => {
    let verdict: Watch;
    const at = args.findIndex((a) => typeof a === 'function');
    const callback = args[at] as ((res: IncomingMessage) => void) | undefined;
    if (callback) {
      args[at] = (res: IncomingMessage) => {
        if (verdict && 'answered' in verdict) verdict.answered(res, () => callback(res));
        else callback(res);
      };
    }
    const req = (realRequest as (...a: unknown[]) => http.ClientRequest)(...args);
    const target = args[0];
    const url = target instanceof URL ? target.href : typeof target === 'string' ? target : '';
    const end = req.end.bind(req) as (...a: unknown[]) => http.ClientRequest;
    req.end = ((...endArgs: unknown[]) => {
      const body = typeof endArgs[0] === 'string' ? endArgs[0] : '';
      verdict = watch({ method: req.method, url, body });
      if (verdict && 'hold' in verdict) return req;
      return end(...endArgs);
    }) as typeof req.end;
    return req;
  };
  http.request = patched as typeof http.request;
}

const SENDS = /"(eth_sendRawTransaction|sendTransaction)"/;

/**
 * The transactions a request to a node sends, if it is a send, of every family: JSON-RPC
 * `eth_sendRawTransaction` and Solana's `sendTransaction` (alone or in a batch), Esplora's
 * `POST /tx` (the hex) and Horizon's `POST /transactions` (a form with the envelope). `eth`
 * tells Ethereum's raw transactions, whose id is their keccak-256.
 */
export function sentTransactions({ method, url, body }: OutgoingRequest): { raws: string[]; eth: boolean } | undefined {
  if (method.toUpperCase() !== 'POST') return undefined;
  if (SENDS.test(body)) {
    try {
      const calls = [JSON.parse(body)].flat() as { method: string; params: string[] }[];
      const raws = calls.filter((c) => SENDS.test(`"${c.method}"`) && c.params[0]).map((c) => c.params[0] as string);
      return { raws, eth: calls.some((c) => c.method === 'eth_sendRawTransaction') };
    } catch {
      return undefined;
    }
  }
  const path = url ? new URL(url).pathname.replace(/\/$/, '') : '';
  if (path.endsWith('/tx')) return { raws: [body.trim()], eth: false };
  if (path.endsWith('/transactions')) return { raws: [new URLSearchParams(body).get('tx') ?? body], eth: false };
  return undefined;
}
