import { getBase58Decoder, getBase64Encoder, getBase64Decoder, getTransactionDecoder, address as toAddress, type Address, type Transaction } from '@solana/kit';
import { FailedTransactionMetadata, type EpochSchedule, type LiteSVM } from 'litesvm';
import { getBlock, getBlocks } from './block-rpc.js';
import { BlockLog, type Execution } from './blocks.js';
import { finalityDepthOf, signatureStatuses, type LandedTx } from './commitment.js';
import { RecentBlockhashes } from './lifetime.js';
import { fail, type RpcError } from './rpc-error.js';
import { describeFailure } from './tx-error.js';

/**
 * A Solana JSON-RPC facade over an in-process LiteSVM: exactly the methods the Solana adaptor
 * calls, answered from the SVM's real state. Every transaction runs through LiteSVM (real
 * System, SPL Token and Associated Token Account programs, real signature and blockhash or
 * durable-nonce checks). What LiteSVM has no notion of (a genesis hash, a fee market) is
 * answered plainly or refused with "method not found"; nothing is made up.
 *
 * Blocks: every transaction the node runs (sent, or its own faucet and mint payments) goes into
 * the block of the next slot, which closes at once (blocks.ts records what getBlock shows of
 * it). So the slot the node is at always has a complete block: a transaction executed while the
 * clock is at slot N carries N's blockhash and lands in N + 1, as on a cluster. `skipSlots`
 * leaves slots without a block, as leaders that produce nothing do.
 *
 * Commitment (commitment.ts): a transaction is `processed` in its block's slot, `confirmed` a
 * slot later and `finalized` `finalityDepth` slots later. Slots advance only when the node
 * produces a block (a transaction, `nextSlot`, `advance`); the local node (index.ts) keeps
 * producing empty blocks while something landed is not rooted yet.
 */

export type { RpcError };

export interface FacadeOptions {
  /** Slots after its block a transaction is finalized (rooted); default 2. */
  finalityDepth?: number;
}

type Params = unknown[];

export class SvmRpcFacade {
  /** Signatures of the transactions that landed, with their slot and error: what getSignatureStatuses reports. */
  private readonly landed = new Map<string, LandedTx>();

  /** The latest slot with a transaction in it: everything landed is rooted once the node is `finalityDepth` past it. */
  private lastLanding = -1;

  readonly finalityDepth: number;

  /** The transactions sendTransaction executed, in order. */
  private readonly sentAndExecuted: string[] = [];

  private readonly blocks: BlockLog;

  /** Slots the next block comes after, left without a block (skipSlots). */
  private skipping = 0;

  /**
   * The first signature of every decodable sendTransaction request, in order, whether it
   * executed or was refused: how a test sees that nothing was sent twice.
   */
  readonly sendRequests: string[] = [];

  private readonly recent: RecentBlockhashes;

  /** Set by dropNextSend: the next transaction that passes preflight is answered but never executed. */
  private dropping = false;

  constructor(
    private readonly svm: LiteSVM,
    options: FacadeOptions = {},
  ) {
    this.finalityDepth = finalityDepthOf(options.finalityDepth);
    this.recent = new RecentBlockhashes(svm);
    this.blocks = new BlockLog({ slot: Number(this.slot()), blockhash: svm.latestBlockhash() });
    this.recent.record(this.height());
  }

  private slot(): bigint {
    return this.svm.getClock().slot;
  }

  /** The latest block's height: the slot, less the slots skipped. */
  private height(): bigint {
    return BigInt(this.blocks.height);
  }

  /**
   * The next block, with a new blockhash and the transactions run since the last one, as a
   * validator moves on after including transactions; after the slots `skipSlots` asked for.
   */
  nextSlot(): void {
    const skipped = BigInt(this.skipping);
    this.skipping = 0;
    this.svm.warpToSlot(this.slot() + 1n + skipped);
    this.svm.expireBlockhash();
    this.blocks.close(Number(this.slot()), this.svm.latestBlockhash());
    this.recent.record(this.height());
  }

  /** Produces `n` empty blocks, as the cluster moves on (what roots the blocks before them). */
  advance(n: number): void {
    for (let i = 0; i < n; i++) this.nextSlot();
  }

  /** The latest block's height (getBlockHeight). */
  blockHeight(): number {
    return Number(this.height());
  }

  /** Produces empty blocks until every transaction landed so far is rooted (finalized). */
  root(): void {
    while (this.unrooted()) this.nextSlot();
  }

  /** Whether a transaction landed in a block that is not rooted yet. */
  unrooted(): boolean {
    return this.lastLanding >= 0 && Number(this.slot()) - this.lastLanding < this.finalityDepth;
  }

  /** The next `n` slots get no block (their leaders produce nothing): the next block's parent is the latest one. */
  skipSlots(n: number): void {
    this.skipping += n;
  }

  /**
   * Runs one of the node's own transactions (faucet, mint) in the next block, which closes:
   * recorded like a sent one, not checked for age (the node signs it with its latest blockhash).
   */
  execute(tx: Transaction): Execution {
    const ran = this.blocks.run(this.svm, tx);
    if (ran.landed) this.land(ran);
    return ran;
  }

  private land(ran: Execution): void {
    this.nextSlot();
    this.lastLanding = Number(this.slot());
    this.landed.set(ran.signature, { slot: this.lastLanding, err: ran.err });
  }

  /**
   * The next transaction sent is checked and answered with its signature, as an RPC node
   * answers when it takes a transaction, but never executed: what happens when no leader
   * includes it before the node stops retrying it (about 150 blocks) or restarts.
   */
  dropNextSend(): void {
    this.dropping = true;
  }

  /** Answers one JSON-RPC request body; errors in JSON-RPC's shape. */
  handle(body: unknown): unknown {
    const req = body as { id?: unknown; method?: unknown; params?: unknown } | null;
    const id = req && typeof req === 'object' && 'id' in req ? req.id : null;
    try {
      if (!req || typeof req !== 'object' || typeof req.method !== 'string') fail(-32600, 'Invalid request');
      const params = Array.isArray(req?.params) ? (req.params as Params) : [];
      return { jsonrpc: '2.0', id, result: this.call(req?.method as string, params) };
    } catch (e) {
      const rpc = (e as { rpc?: RpcError }).rpc ?? { code: -32603, message: `Internal error: ${(e as Error).message}` };
      return { jsonrpc: '2.0', id, error: rpc };
    }
  }

  private call(method: string, params: Params): unknown {
    const context = { slot: Number(this.slot()) };
    switch (method) {
      case 'getSlot':
        return Number(this.slot());
      case 'getBlockHeight':
        // Blocks produced: the slot less the skipped slots. lastValidBlockHeight below counts in them, as Agave's does.
        return Number(this.height());
      case 'getEpochInfo':
        return this.epochInfo();
      case 'isBlockhashValid':
        if (typeof params[0] !== 'string') return fail(-32602, 'Invalid param: expected a blockhash');
        return { context, value: this.recent.isValid(params[0], this.height()) };
      case 'getLatestBlockhash':
        return { context, value: { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: Number(this.height()) + 150 } };
      case 'getMinimumBalanceForRentExemption':
        return Number(this.svm.minimumBalanceForRentExemption(BigInt(asCount(params[0], 'data length'))));
      case 'getMultipleAccounts':
        return { context, value: asList(params[0]).map((a) => this.account(asAddress(a))) };
      case 'getRecentPrioritizationFees':
        // LiteSVM has no fee market and keeps no per-slot fee history: no recent fees to report.
        return [];
      case 'sendTransaction':
        return this.send(params);
      case 'getSignatureStatuses':
        return { context, value: signatureStatuses(params, (s) => this.landed.get(s), context.slot, this.finalityDepth) };
      case 'getBlock':
        return getBlock(this.blocks, params, Number(this.slot()));
      case 'getBlocks':
        return getBlocks(this.blocks, params, Number(this.slot()));
      default:
        return fail(-32601, `Method not found: ${method} is not served by the local LiteSVM node`);
    }
  }

  /** Slot and block height of the one bank there is, with the epoch the SVM's epoch schedule puts that slot in. */
  private epochInfo(): unknown {
    const slot = this.slot();
    const { epoch, slotIndex, slotsInEpoch } = epochOf(this.svm.getEpochSchedule(), slot);
    // LiteSVM keeps no transaction count.
    return {
      absoluteSlot: Number(slot),
      blockHeight: Number(this.height()),
      epoch: Number(epoch),
      slotIndex: Number(slotIndex),
      slotsInEpoch: Number(slotsInEpoch),
      transactionCount: null,
    };
  }

  private account(a: Address): unknown {
    const acc = this.svm.getAccount(a);
    if (!acc.exists) return null;
    return {
      lamports: Number(acc.lamports),
      owner: acc.programAddress,
      data: [getBase64Decoder().decode(acc.data), 'base64'],
      executable: acc.executable,
      rentEpoch: 0,
      space: acc.data.length,
    };
  }

  private send(params: Params): string {
    const [wire, config] = params as [unknown, { encoding?: string; skipPreflight?: unknown } | undefined];
    if (typeof wire !== 'string') return fail(-32602, 'invalid transaction: expected an encoded string');
    if (config?.encoding !== 'base64') return fail(-32602, 'the local node accepts base64-encoded transactions only');
    if (config.skipPreflight !== undefined && typeof config.skipPreflight !== 'boolean') return fail(-32602, 'Invalid params: skipPreflight is a boolean');
    let tx;
    try {
      tx = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
    } catch (e) {
      return fail(-32602, `failed to deserialize transaction: ${(e as Error).message}`);
    }
    const first = Object.values(tx.signatures)[0];
    if (!first) return fail(-32602, 'transaction has no signature');
    const signature = getBase58Decoder().decode(first);
    this.sendRequests.push(signature);
    // The runtime's order (Agave's check_transactions: check_age, then check_status_cache only
    // for what passed): a landed durable-nonce transaction has moved its nonce on, so sent again
    // it is "Blockhash not found", not "already processed".
    const stale = this.recent.refusal(Uint8Array.from(tx.messageBytes), this.height());
    if (config.skipPreflight === true) {
      // Without preflight the node forwards what decodes and whose signatures verify; the leader
      // drops a stale or repeated one, and runs the rest: one that fails after its fee is
      // charged lands in the block with its error.
      if (stale || this.landed.has(signature)) return signature;
      const ran = this.blocks.run(this.svm, tx);
      if (!ran.landed && ran.err === 'SignatureFailure') return fail(-32003, 'Transaction signature verification failure');
      if (ran.landed) this.landAsSent(ran);
      return signature;
    }
    if (stale) return fail(-32002, `Transaction simulation failed: ${stale}`, { err: stale });
    if (this.landed.has(signature))
      return fail(-32002, 'Transaction simulation failed: This transaction has already been processed', { err: 'AlreadyProcessed' });
    // Preflight, as an RPC node does by default: LiteSVM's sendTransaction charges the fee of
    // a transaction that fails, so a refused transaction must not reach it.
    const preflight = this.svm.simulateTransaction(tx);
    if (preflight instanceof FailedTransactionMetadata) {
      const err = describeFailure(preflight);
      return fail(-32002, `Transaction simulation failed: ${err}`, { err, logs: preflight.meta().logs() });
    }
    if (this.dropping) {
      this.dropping = false;
      return signature;
    }
    const ran = this.blocks.run(this.svm, tx);
    if (!ran.landed && ran.result instanceof FailedTransactionMetadata) {
      const err = describeFailure(ran.result);
      return fail(-32002, `Transaction simulation failed: ${err}`, { err, logs: ran.result.meta().logs() });
    }
    this.landAsSent(ran);
    return signature;
  }

  private landAsSent(ran: Execution): void {
    this.land(ran);
    this.sentAndExecuted.push(ran.signature);
  }

  /** Signatures of the transactions executed through sendTransaction, in order (failed ones that landed included). */
  executed(): string[] {
    return [...this.sentAndExecuted];
  }
}

/** The runtime's EpochSchedule::get_epoch_and_slot_index, with the epoch's length: short epochs (from 32 slots) while warming up, then fixed. */
function epochOf(schedule: EpochSchedule, slot: bigint): { epoch: bigint; slotIndex: bigint; slotsInEpoch: bigint } {
  const MINIMUM = 32n;
  if (slot < schedule.firstNormalSlot) {
    let epoch = 0n;
    let first = 0n;
    let length = MINIMUM;
    while (slot >= first + length) {
      first += length;
      length *= 2n;
      epoch += 1n;
    }
    return { epoch, slotIndex: slot - first, slotsInEpoch: length };
  }
  const normal = slot - schedule.firstNormalSlot;
  return {
    epoch: schedule.firstNormalEpoch + normal / schedule.slotsPerEpoch,
    slotIndex: normal % schedule.slotsPerEpoch,
    slotsInEpoch: schedule.slotsPerEpoch,
  };
}

function asList(v: unknown): unknown[] {
  if (!Array.isArray(v)) return fail(-32602, 'expected an array of addresses');
  if (v.length > 100) return fail(-32602, 'too many entries: at most 100');
  return v;
}

function asAddress(v: unknown): Address {
  try {
    return toAddress(String(v));
  } catch {
    return fail(-32602, `Invalid param: ${String(v)} is not a base58 public key`);
  }
}

function asCount(v: unknown, what: string): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v > 10 * 1024 * 1024) return fail(-32602, `Invalid param: ${what}`);
  return v;
}
