import { threadId as mainThreadId, type Worker } from 'node:worker_threads';
import type { Logger } from 'pino';
import { UnavailableError } from '../../platform/errors.js';
import type { AddressCodec } from '../../ledger/adaptor.js';
import { deriveAddress, type AddressDeriver } from './derive-addresses.js';
import {
  describeCodec,
  fromWire,
  sameCodec,
  type ChunkTask,
  type CodecDescription,
  type DeriveWorkerData,
  type LedgerSpec,
  type WorkerMessage,
} from './derive-protocol.js';
import { spawnWorker } from './derive-thread-entry.js';
import { TimeSlicer } from './time-sliced.js';

/**
 * Keys a thread takes at a time. Requests take turns chunk by chunk, so a 10,000-key batch
 * never makes a later small one wait for more than one chunk per thread (~10-60 ms of
 * derivation, depending on the ledger), and each result message stays small.
 */
export const CHUNK_KEYS = 250;

/**
 * Idle time after which the threads stop. Each thread holds every ledger family's libraries
 * (~75 MB of RSS, ~105 MB after heavy use, measured built): they are kept only while batches
 * come, and the next batch after a pause waits for them to start again (2 s built on a loaded
 * 2-core machine).
 */
export const IDLE_STOP_MS = 30_000;

export interface DerivePoolOptions {
  /** Threads to run; 0 derives everything on the main thread, in time slices. */
  threads: number;
  /** The configured ledgers, which each thread builds again from the registered families. */
  ledgers: LedgerSpec[];
  logger: Logger;
  chunkKeys?: number;
  /** How long the threads may take to load before the pool gives up on them. */
  startTimeoutMs?: number;
  /** Idle time after which the threads stop (`IDLE_STOP_MS`). */
  idleStopMs?: number;
  /** The thread's entry module: `deriveThreadEntry()` of the composition root (`.ts` under tsx, `.js` built). */
  entry: URL;
  /** Told which thread derived each chunk (0 = the main thread). */
  onChunk?: (chunk: { threadId: number; keys: number }) => void;
}

interface Pending {
  codec: AddressCodec;
  keys: readonly string[];
  format: string | undefined;
  out: string[];
  /** Start of the next chunk not yet handed out. */
  next: number;
  /** Chunks to run again (their thread died), ahead of new ones. */
  retry: Chunk[];
  running: number;
  /** The failing key of lowest index so far. */
  failed?: { index: number; error: unknown };
  /** Whether the threads derive its ledger (decided once they run). */
  served?: boolean;
  resolve: (addresses: string[]) => void;
  reject: (e: unknown) => void;
}

interface Chunk {
  req: Pending;
  from: number;
  to: number;
  /** Threads it was lost with. */
  lost: number;
}

type PoolState = 'idle' | 'starting' | 'running' | 'failed' | 'closed';

interface Thread {
  worker: Worker;
  threadId: number;
  busy?: Chunk;
  exited?: boolean;
  /** Stopped on purpose (idle, closed): its exit is no loss. */
  retired?: boolean;
}

/**
 * Derives address-from-publickey batches in a small pool of worker threads, so the API's event
 * loop stays free for other requests (and the derivation's garbage is collected in the threads'
 * own heaps). Every request in flight is cut into chunks of `CHUNK_KEYS`, handed out in turns.
 * The threads start with the first request and are unreferenced, so they never keep the process
 * alive, and stop again after `IDLE_STOP_MS` without work. If they cannot start, the pool says so
 * once in the log and derives on the main thread in time slices instead; a ledger a thread does
 * not describe as the main thread does is derived there too. Either way the answers are those of
 * `deriveAddress`.
 */
export class DerivePool implements AddressDeriver {
  private state: PoolState = 'idle';
  private threads: Thread[] = [];
  private codecs: CodecDescription[] = [];
  private readonly requests: Pending[] = [];
  private turn = 0;
  private readonly slicer = new TimeSlicer();
  private readonly chunkKeys: number;
  private readonly entry: URL;
  private started?: Promise<void>;
  private idleTimer?: NodeJS.Timeout;

  constructor(private readonly opts: DerivePoolOptions) {
    this.chunkKeys = opts.chunkKeys ?? CHUNK_KEYS;
    this.entry = opts.entry;
    if (opts.threads === 0) this.state = 'failed';
  }

  /** Starts the threads (the first request does too); resolves true once they run, false when the pool derives on the main thread. */
  async start(): Promise<boolean> {
    if (this.state === 'idle') this.started = this.startThreads();
    await this.started;
    return this.state === 'running';
  }

  /** Thread ids of the running threads (empty once closed or fallen back). */
  threadIds(): number[] {
    return this.threads.map((t) => t.threadId);
  }

  derive(codec: AddressCodec, keys: readonly string[], format: string | undefined): Promise<string[]> {
    if (this.state === 'closed') return Promise.reject(new UnavailableError('The service is shutting down; retry.'));
    if (keys.length === 0) return Promise.resolve([]);
    return new Promise<string[]>((resolve, reject) => {
      const req: Pending = { codec, keys, format, out: new Array<string>(keys.length), next: 0, retry: [], running: 0, resolve, reject };
      this.requests.push(req);
      clearTimeout(this.idleTimer);
      if (this.state === 'idle') void this.start();
      if (this.state === 'failed') this.runRestInThread(req);
      else this.dispatch();
    });
  }

  async close(): Promise<void> {
    if (this.state === 'closed') return;
    this.state = 'closed';
    clearTimeout(this.idleTimer);
    await this.retireThreads();
    for (const req of this.requests.splice(0)) req.reject(new UnavailableError('The service is shutting down; retry.'));
  }

  private async retireThreads(): Promise<void> {
    const threads = this.threads;
    this.threads = [];
    for (const t of threads) t.retired = true;
    await Promise.all(threads.map((t) => t.worker.terminate()));
  }

  /** With nothing left to do, the threads stop after `idleStopMs`; the next request starts them again. */
  private idleLater(): void {
    if (this.state !== 'running' || this.requests.length > 0) return;
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      if (this.state !== 'running' || this.requests.length > 0) return;
      this.state = 'idle';
      this.started = undefined;
      void this.retireThreads();
      this.opts.logger.debug('address-derivation threads stopped while idle');
    }, this.opts.idleStopMs ?? IDLE_STOP_MS);
    this.idleTimer.unref();
  }

  private async startThreads(): Promise<void> {
    this.state = 'starting';
    const data: DeriveWorkerData = { ledgers: this.opts.ledgers };
    const spawned = await Promise.allSettled(Array.from({ length: this.opts.threads }, () => this.spawn(data)));
    const ready = spawned.flatMap((s) => (s.status === 'fulfilled' && !s.value.exited ? [s.value] : []));
    const failure = spawned.find((s): s is PromiseRejectedResult => s.status === 'rejected');
    const retire = () =>
      Promise.all(
        ready.map((t) => {
          t.retired = true;
          return t.worker.terminate();
        }),
      );
    // Closed while the threads loaded.
    if ((this.state as PoolState) === 'closed') {
      await retire();
      return;
    }
    if (failure || ready.length === 0) {
      await retire();
      this.fallBack(failure?.reason, 'address-derivation threads could not start: deriving on the main thread in time slices');
      return;
    }
    this.threads = ready;
    this.state = 'running';
    this.opts.logger.info({ threads: ready.length, chunkKeys: this.chunkKeys }, 'address-derivation threads ready');
    this.dispatch();
    this.idleLater();
  }

  /** One thread, resolved once it described its ledgers. */
  private spawn(data: DeriveWorkerData): Promise<Thread> {
    return new Promise<Thread>((resolve, reject) => {
      let worker: Worker;
      try {
        worker = spawnWorker(this.entry, data);
      } catch (e) {
        reject(e);
        return;
      }
      worker.unref();
      const thread: Thread = { worker, threadId: worker.threadId };
      const timer = setTimeout(() => {
        void worker.terminate();
        reject(new Error(`no answer within ${this.opts.startTimeoutMs ?? 60_000} ms`));
      }, this.opts.startTimeoutMs ?? 60_000);
      timer.unref();
      const early = (e: unknown) => {
        clearTimeout(timer);
        reject(e instanceof Error ? e : new Error(`the thread exited with code ${String(e)}`));
      };
      worker.once('error', early);
      worker.once('exit', early);
      worker.once('message', (m: WorkerMessage) => {
        clearTimeout(timer);
        worker.off('error', early);
        worker.off('exit', early);
        if (m.type !== 'ready') {
          void worker.terminate();
          reject(new Error(`unexpected first message '${m.type}'`));
          return;
        }
        this.codecs = m.codecs;
        worker.on('message', (msg: WorkerMessage) => this.onMessage(thread, msg));
        worker.on('error', (e) => this.opts.logger.error({ err: e, threadId: thread.threadId }, 'address-derivation thread failed'));
        worker.on('exit', (code) => this.onExit(thread, code));
        resolve(thread);
      });
    });
  }

  /** Hands chunks to idle threads, one request's chunk after another's. */
  private dispatch(): void {
    if (this.state !== 'running') return;
    for (const req of [...this.requests]) if (!this.served(req)) this.runRestInThread(req);
    for (const thread of this.threads) {
      if (thread.busy) continue;
      const chunk = this.nextChunk();
      if (!chunk) return;
      thread.busy = chunk;
      chunk.req.running++;
      const { req } = chunk;
      const task: ChunkTask = { ledgerId: req.codec.ledgerId, format: req.format, from: chunk.from, keys: req.keys.slice(chunk.from, chunk.to) };
      thread.worker.postMessage(task);
    }
  }

  private nextChunk(): Chunk | undefined {
    const n = this.requests.length;
    for (let k = 0; k < n; k++) {
      const i = (this.turn + k) % n;
      const req = this.requests[i] as Pending;
      const chunk = req.retry.shift() ?? this.newChunk(req);
      if (chunk) {
        this.turn = i + 1;
        return chunk;
      }
    }
    return undefined;
  }

  private newChunk(req: Pending): Chunk | undefined {
    // After a failure only the chunks before it matter: they were handed out already.
    if (req.failed || req.next >= req.keys.length) return undefined;
    const from = req.next;
    req.next = Math.min(req.keys.length, from + this.chunkKeys);
    return { req, from, to: req.next, lost: 0 };
  }

  /** Whether the threads derive this request's ledger exactly as the main thread would. */
  private served(req: Pending): boolean {
    if (req.served === undefined) {
      const mine = describeCodec(req.codec);
      req.served = this.codecs.some((c) => sameCodec(c, mine));
    }
    return req.served;
  }

  private onMessage(thread: Thread, m: WorkerMessage): void {
    const chunk = thread.busy;
    if (!chunk || m.type === 'ready') return;
    thread.busy = undefined;
    const { req } = chunk;
    req.running--;
    if (m.type === 'done') {
      for (let i = 0; i < m.addresses.length; i++) req.out[chunk.from + i] = m.addresses[i] as string;
      this.opts.onChunk?.({ threadId: thread.threadId, keys: m.addresses.length });
    } else this.fail(req, m.index, fromWire(m.error));
    this.settle(req);
    this.dispatch();
  }

  /** A thread that died: its chunk goes to another (or, lost twice, to the main thread), and a new thread takes its place. */
  private onExit(thread: Thread, code: number): void {
    thread.exited = true;
    this.threads = this.threads.filter((t) => t !== thread);
    if (thread.retired) return;
    // While starting, the start sees it gone; once closed or fallen back, nothing waits on it.
    if (this.state !== 'running') return;
    this.opts.logger.warn({ threadId: thread.threadId, code }, 'address-derivation thread exited; starting another');
    const chunk = thread.busy;
    if (chunk) {
      chunk.req.running--;
      chunk.lost++;
      if (chunk.lost > 1) this.runInThread(chunk);
      else chunk.req.retry.unshift(chunk);
    }
    this.spawn({ ledgers: this.opts.ledgers }).then(
      (t) => {
        if (this.state !== 'running') {
          void t.worker.terminate();
          return;
        }
        this.threads.push(t);
        this.dispatch();
      },
      (e: unknown) => {
        if (this.threads.length === 0 && this.state === 'running')
          this.fallBack(e, 'no address-derivation thread left: deriving on the main thread in time slices');
      },
    );
    this.dispatch();
  }

  private fallBack(err: unknown, message: string): void {
    this.state = 'failed';
    this.opts.logger.warn({ err }, message);
    for (const req of [...this.requests]) this.runRestInThread(req);
  }

  /** Everything of `req` not handed out yet, on the main thread. */
  private runRestInThread(req: Pending): void {
    const chunks = req.retry.splice(0);
    if (!req.failed && req.next < req.keys.length) chunks.push({ req, from: req.next, to: req.keys.length, lost: 0 });
    req.next = req.keys.length;
    for (const chunk of chunks) this.runInThread(chunk);
    this.settle(req);
  }

  private runInThread(chunk: Chunk): void {
    const { req } = chunk;
    req.running++;
    let index = chunk.from;
    this.slicer
      .map(req.keys.slice(chunk.from, chunk.to), (text, i) => {
        index = chunk.from + i;
        return deriveAddress(req.codec, text, index, req.format);
      })
      .then(
        (addresses) => {
          for (let i = 0; i < addresses.length; i++) req.out[chunk.from + i] = addresses[i] as string;
          this.opts.onChunk?.({ threadId: mainThreadId, keys: addresses.length });
        },
        (e: unknown) => this.fail(req, index, e),
      )
      .finally(() => {
        req.running--;
        this.settle(req);
      });
  }

  private fail(req: Pending, index: number, error: unknown): void {
    if (!req.failed || index < req.failed.index) req.failed = { index, error };
  }

  /** Answers a request once nothing of it runs and nothing before its first failure is left. */
  private settle(req: Pending): void {
    const rest = req.retry.length > 0 || (!req.failed && req.next < req.keys.length);
    if (req.running > 0 || rest) return;
    const at = this.requests.indexOf(req);
    if (at < 0) return;
    this.requests.splice(at, 1);
    if (at < this.turn) this.turn--;
    if (req.failed) req.reject(req.failed.error);
    else req.resolve(req.out);
    this.idleLater();
  }
}
