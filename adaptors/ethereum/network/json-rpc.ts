import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import { isBlockNotServed, isRateLimit } from './errors.js';
import type { HttpAnswer, HttpFetch } from '../../../src/platform/http-client.js';

/**
 * A JSON-RPC error the node answered with; `code` is the node's, e.g. -32003 nonce too low. The
 * error of a send is the node's verdict on the transaction, read by the refusal table
 * (errors.ts); the error of a read is the node failing to answer (an index still being built, a
 * backend behind the others), worth asking again.
 */
export class JsonRpcError extends UpstreamError {
  constructor(
    readonly method: string,
    readonly rpcCode: number,
    readonly rpcMessage: string,
    readonly data?: unknown,
  ) {
    super(`${method}: ${rpcMessage} (code ${rpcCode})`, method !== 'eth_sendRawTransaction', undefined, 'ERR_NODE_REJECTED');
  }
}

export interface RpcCall {
  method: string;
  params: unknown[];
}

/** One call's outcome within a batch. */
export type Settled<T> = { ok: true; value: T } | { ok: false; error: Error };

interface RpcResponse {
  id: number;
  result?: unknown;
  error?: RpcErrorEntry;
}

interface RpcErrorEntry {
  code: number;
  message?: unknown;
  data?: unknown;
}

/**
 * One call's error entry as a typed error. A provider's rate limit and an entry without words
 * say nothing of the call (it may never have reached the node): asked again, like an HTTP 429.
 * So does a read at a block the node does not serve (behind, or pruned): the node is
 * unavailable for it, it did not refuse it.
 */
function callError(method: string, error: RpcErrorEntry): Error {
  const message = typeof error.message === 'string' ? error.message : '';
  if (message.trim() === '')
    return new UpstreamError(`Ethereum node answered ${method} with error code ${error.code} and no message`, true, undefined, 'ERR_NODE_UNAVAILABLE');
  if (isRateLimit(message))
    return new UnavailableError(`Ethereum node rate-limited ${method}: ${message} (code ${error.code})`, undefined, 'ERR_NODE_UNAVAILABLE');
  if (method !== 'eth_sendRawTransaction' && isBlockNotServed(message))
    return new UnavailableError(
      `Ethereum node does not serve the block ${method} asked for: ${message} (code ${error.code})`,
      undefined,
      'ERR_NODE_UNAVAILABLE',
    );
  return new JsonRpcError(method, error.code, message, error.data);
}

/** Minimal JSON-RPC 2.0 client over an injected fetch, with batching. */
export class JsonRpcClient {
  private nextId = 1;
  /** The node's host, as refusals name it: never the path or query, where providers put API keys. */
  readonly node: string;

  constructor(
    private readonly url: string,
    private readonly fetchFn: HttpFetch,
    private readonly timeoutMs = 10_000,
  ) {
    this.node = new URL(url).host;
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const [result] = await this.batch<T>([{ method, params }]);
    return result as T;
  }

  /** One HTTP round trip for all calls; results in call order. The first error throws. */
  async batch<T = unknown>(calls: RpcCall[]): Promise<T[]> {
    return (await this.settle<T>(calls)).map((r) => {
      if (!r.ok) throw r.error;
      return r.value;
    });
  }

  /**
   * One HTTP round trip for all calls; each call's own answer or error, in call order. A
   * failure of the round trip itself (node unreachable, not JSON) throws.
   */
  async settle<T = unknown>(calls: RpcCall[]): Promise<Settled<T>[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '2.0', id: first + i, method: c.method, params: c.params }));
    let res: HttpAnswer;
    try {
      res = await this.fetchFn(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(calls.length === 1 ? body[0] : body),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new UnavailableError(`Ethereum node unreachable: ${(e as Error).message}`, e, 'ERR_NODE_UNAVAILABLE');
    }
    if (res.status >= 500 || res.status === 429) {
      throw new UnavailableError(`Ethereum node answered HTTP ${res.status}`, undefined, 'ERR_NODE_UNAVAILABLE');
    }
    const text = await res.text();
    let parsed: RpcResponse | RpcResponse[];
    try {
      parsed = JSON.parse(text) as RpcResponse | RpcResponse[];
    } catch (e) {
      throw new UpstreamError(`Ethereum node answered HTTP ${res.status} with non-JSON`, true, e, 'ERR_NODE_UNAVAILABLE');
    }
    const list = Array.isArray(parsed) ? parsed : [parsed];
    const byId = new Map(list.map((r) => [r.id, r]));
    return calls.map((c, i): Settled<T> => {
      const r = byId.get(first + i);
      if (!r) return { ok: false, error: new UpstreamError(`Ethereum node gave no answer to ${c.method}`, true) };
      if (r.error) return { ok: false, error: callError(c.method, r.error) };
      return { ok: true, value: r.result as T };
    });
  }
}
