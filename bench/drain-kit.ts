/**
 * What the pipeline drain needs of a ledger family (bench/run.ts runs the same drain for each):
 * its node, vaults ready to withdraw from, the withdrawal to make, the bare client's reference
 * on the same node through the same facade, and the check of the family's ordering rule once
 * everything is sent.
 */
import { performance } from 'node:perf_hooks';
import type { Operation } from '../src/withdrawals/model/operation.js';

/** The bare client's reference: `n` pre-signed transactions sent one at a time, each after the node answered the previous one. */
export interface BareSend {
  /** The node's height (block, ledger or slot) when the bare client started. */
  height: number;
  transactions: number;
  seconds: number;
  perSecond: number;
  rpcMsP50: number;
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
