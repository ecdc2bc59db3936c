import type { JsonRpcClient, RpcCall } from './json-rpc.js';

interface Waiting {
  call: RpcCall;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
}

/**
 * Calls made in the same turn of the event loop go to the node as one JSON-RPC batch (one
 * round trip), each answered or failed on its own: concurrent withdrawals to different
 * recipients share the trip for their gas estimates. At most `maxBatch` calls per batch.
 */
export class CallBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;

  constructor(
    private readonly rpc: JsonRpcClient,
    private readonly maxBatch = 50,
  ) {}

  call<T>(method: string, params: unknown[]): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.waiting.push({ call: { method, params }, resolve: resolve as (v: unknown) => void, reject });
      if (this.waiting.length >= this.maxBatch) this.flush();
      else if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const batch = this.waiting.splice(0, this.maxBatch);
    if (this.waiting.length > 0 && !this.scheduled) {
      this.scheduled = true;
      setImmediate(() => this.flush());
    }
    if (batch.length === 0) return;
    this.rpc.settle(batch.map((w) => w.call)).then(
      (results) =>
        results.forEach((r, i) => {
          const w = batch[i] as Waiting;
          if (r.ok) w.resolve(r.value);
          else w.reject(r.error);
        }),
      (e: unknown) => batch.forEach((w) => w.reject(e)),
    );
  }
}
