/**
 * Idle latency: one withdrawal at a time, from the moment the callback is accepted (the API's
 * 200 read by the custody side) to the moment the node's answer to `eth_sendRawTransaction`
 * is read inside the worker (bench/preload.ts), minus the node's own time for that call.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import type { OperationStore } from '../src/withdrawals/store/operation-store.js';
import type { ChildStats } from './procs.js';
import { r1 } from './stats.js';

export interface IdleLatency {
  withdrawals: number;
  /** Callback accepted → node answered, minus the node's time: what the service adds. */
  beyondMsP50: number;
  beyondMsP99: number;
  beyondMsMax: number;
  /** Callback accepted → node answered. */
  totalMsP50: number;
  rpcMsP50: number;
}

export interface IdleOptions {
  count: number;
  /** Withdrawals sent first and left out (the account's first send asks the node for its nonce). */
  warmup: number;
  withdraw: (i: number) => Promise<string>;
  store: OperationStore;
  /** digest → when its callback's 200 was read (performance.timeOrigin + now()). */
  accepted: Map<string, number>;
  sends: () => Promise<ChildStats['sends']>;
}

const pct = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] as number;

export async function idleLatency(o: IdleOptions): Promise<IdleLatency> {
  const measured: { digest: string; txid: string }[] = [];
  for (let i = 0; i < o.warmup + o.count; i++) {
    const operationID = await o.withdraw(i);
    let done;
    const end = Date.now() + 30_000;
    for (;;) {
      done = await o.store.resolve(operationID);
      if (done && ['BROADCAST', 'CONFIRMED', 'FAILED'].includes(done.status)) break;
      if (Date.now() > end) throw new Error(`idle withdrawal ${i} (${operationID}) not broadcast after 30 s: ${done?.status}`);
      await sleep(2);
    }
    if (done.status === 'FAILED') throw new Error(`idle withdrawal ${i} failed: ${done.failureReason}`);
    if (i >= o.warmup) measured.push({ digest: (done.unsigned.payloads[0]?.digest ?? '').toLowerCase(), txid: (done.txids[0] ?? '').toLowerCase() });
  }
  const sends = new Map<string, { ms: number; at: number }>();
  // The first send of each transaction is the one that counts.
  for (const s of await o.sends()) if (!sends.has(s.txid.toLowerCase())) sends.set(s.txid.toLowerCase(), s);
  const beyond: number[] = [];
  const total: number[] = [];
  const rpc: number[] = [];
  for (const m of measured) {
    const send = sends.get(m.txid);
    const accepted = o.accepted.get(m.digest);
    if (!send || accepted === undefined) throw new Error(`idle: no timing for ${m.txid} (send ${Boolean(send)}, callback ${accepted !== undefined})`);
    total.push(send.at - accepted);
    beyond.push(send.at - accepted - send.ms);
    rpc.push(send.ms);
  }
  for (const a of [beyond, total, rpc]) a.sort((x, y) => x - y);
  return {
    withdrawals: measured.length,
    beyondMsP50: r1(pct(beyond, 50)),
    beyondMsP99: r1(pct(beyond, 99)),
    beyondMsMax: r1(beyond[beyond.length - 1] as number),
    totalMsP50: r1(pct(total, 50)),
    rpcMsP50: r1(pct(rpc, 50)),
  };
}
