/**
 * What the pipeline drain needs of a ledger family (bench/run.ts runs the same drain for each):
 * its node, vaults ready to withdraw from, the withdrawal to make, the bare client's reference
 * on the same node through the same facade, and the check of the family's ordering rule once
 * everything is sent.
 */
import { performance } from 'node:perf_hooks';
import type { Operation } from '../src/withdrawals/model/operation.js';
import { pct, r2 } from './stats.js';
import { sentTransactions, watchHttpRequests } from '../src/dev/outgoing-http.js';

/** The bare client's reference: `n` pre-signed transactions sent one at a time, each after the node answered the previous one. */
export interface BareSend {
  /** The node's height (block, ledger or slot) when the bare client started. */
  height: number;
  transactions: number;
  seconds: number;
  perSecond: number;
  rpcMsP50: number;
  /** Between one answer and the next send (`gapsBetween`). */
  gaps?: SendGaps;
  /** How the bare client's transactions differ from the service's, where they do. */
  note?: string;
}

/** The family's ordering rule, checked on the node after a drain. */
export interface OrderCheck {
  /** `nonces`, `coins`, `sequences`, `durable nonces`. */
  rule: string;
  ok: boolean;
  /** What was found, in a few words (`nonces 0..999 (1000), chain count 1000`). */
  detail: string;
}

/** The service's side, as a kit uses it: vault registration and withdrawals through the real API. */
export interface ServiceHandle {
  /** A custody vault of the ledger's scheme, registered with the service. */
  registerVault(ledgerId: string, scheme: 'ECDSA' | 'EDDSA'): Promise<{ vaultId: string; address: string }>;
  /** Creates a withdrawal through the API; its signed callback reaches the service at once. Returns its operationID. */
  withdraw(vaultId: string, body: { recipientAddress: string; amount: string; description: string }): Promise<string>;
  /** Waits until every given withdrawal is CONFIRMED; throws naming the first that FAILED. */
  confirmed(operationIDs: string[]): Promise<void>;
  log(message: string): void;
}

export interface DrainKit {
  /** `Ethereum`, `Bitcoin`, `Stellar`, `Solana`: the table's family. */
  family: string;
  /** The node's own process, where it runs outside the bench process (anvil); the other nodes' CPU is the bench process's. */
  nodePid?: number;
  ledgerId: string;
  /** The ledger's options for the service processes, reaching the kit's node. */
  options: Record<string, unknown>;
  /**
   * One vault per withdrawal index, registered and funded (the same vault repeated where one
   * vault orders many withdrawals; Solana's vaults each hold one durable nonce, so `n` vaults).
   */
  vaults(service: ServiceHandle, n: number): Promise<string[]>;
  /** The i-th withdrawal's recipient and amount. */
  withdrawal(i: number): { recipientAddress: string; amount: string };
  bare(n: number): Promise<BareSend>;
  /** The ordering rule on the node, for the drained withdrawals (all BROADCAST or beyond). */
  check(ops: Operation[]): Promise<OrderCheck>;
  stop(): Promise<void>;
}

/** Sends `raws` one at a time with `send`, each after the answer to the previous one; times each. */
export async function sendOneAtATime(raws: string[], send: (raw: string, i: number) => Promise<void>): Promise<{ seconds: number; rpcMsP50: number }> {
  const rpcMs: number[] = [];
  const started = performance.now();
  for (const [i, raw] of raws.entries()) {
    const t = performance.now();
    await send(raw, i);
    rpcMs.push(performance.now() - t);
  }
  const seconds = (performance.now() - started) / 1000;
  rpcMs.sort((a, b) => a - b);
  return { seconds, rpcMsP50: rpcMs[Math.floor(rpcMs.length / 2)] ?? NaN };
}

/**
 * The bench process's own transaction sends (the bare clients'), timed as bench/preload.ts times
 * the service's: from the request's body written to its answer read, through `node:http`. Spans
 * are kept only between `start` and `stop`.
 */
export function watchBareSends(): { start(): void; stop(): SendSpan[] } {
  let spans: SendSpan[] | undefined;
  watchHttpRequests((req) => {
    const kept = spans;
    if (!kept || !sentTransactions(req)) return undefined;
    const start = performance.now();
    return {
      answered: (res, deliver) => {
        res.once('end', () => kept.push({ start, end: performance.now() }));
        deliver();
      },
    };
  });
  return {
    start: () => {
      spans = [];
    },
    stop: () => {
      const kept = spans ?? [];
      spans = undefined;
      return kept;
    },
  };
}

/** One request that carried sends: when it left and when its answer was read (ms). */
export interface SendSpan {
  start: number;
  end: number;
}

/** The time from one answer to the next send, on a serial path: p50, p90 (ms) and all of it (s). */
export interface SendGaps {
  p50: number;
  p90: number;
  totalSeconds: number;
}

/**
 * What a sender adds between the node's answers on a serial path (an account's sequence
 * numbers, a bare client): from each answer to the next request, the requests in the order they
 * left. Undefined when two requests overlap (sends in parallel: no serial path), or for fewer than two.
 */
export function gapsBetween(spans: SendSpan[]): SendGaps | undefined {
  const sorted = [...spans].sort((a, b) => a.start - b.start);
  const gaps: number[] = [];
  for (let i = 1; i < sorted.length; i++) {
    const gap = (sorted[i] as SendSpan).start - (sorted[i - 1] as SendSpan).end;
    // Sub-millisecond clocks of two reads of the same moment may differ by a few microseconds.
    if (gap < -0.05) return undefined;
    gaps.push(Math.max(0, gap));
  }
  if (gaps.length === 0) return undefined;
  return { p50: r2(pct(gaps, 50)), p90: r2(pct(gaps, 90)), totalSeconds: r2(gaps.reduce((a, g) => a + g, 0) / 1000) };
}
