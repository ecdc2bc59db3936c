import { getBase58Decoder, getBase64Encoder, getBase64Decoder, getTransactionDecoder, address as toAddress, type Address, type Signature } from '@solana/kit';
import { FailedTransactionMetadata, type EpochSchedule, type LiteSVM } from 'litesvm';
import { RecentBlockhashes } from './lifetime.js';

/**
 * A Solana JSON-RPC facade over an in-process LiteSVM: exactly the methods the Solana adaptor
 * calls, answered from the SVM's real state. Every transaction runs through LiteSVM (real
 * System, SPL Token and Associated Token Account programs, real signature and blockhash or
 * durable-nonce checks). What LiteSVM has no notion of (a genesis hash, a fee market) is
 * answered plainly or refused with "method not found"; nothing is made up.
 */

export interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

interface Landed {
  slot: bigint;
}

type Params = unknown[];

const fail = (code: number, message: string, data?: unknown): never => {
  throw Object.assign(new Error(message), { rpc: { code, message, data } satisfies RpcError });
};

export class SvmRpcFacade {
  /** Signatures of the transactions that executed, with their slot: what getSignatureStatuses reports. */
  private readonly landed = new Map<string, Landed>();

  /**
   * The first signature of every decodable sendTransaction request, in order, whether it
   * executed or was refused: how a test sees that nothing was sent twice.
   */
  readonly sendRequests: string[] = [];

  private readonly recent: RecentBlockhashes;

  /** Set by dropNextSend: the next transaction that passes preflight is answered but never executed. */
  private dropping = false;

  constructor(private readonly svm: LiteSVM) {
    this.recent = new RecentBlockhashes(svm);
    this.recent.record(this.slot());
  }

  private slot(): bigint {
    return this.svm.getClock().slot;
  }

  /** A new slot with a new blockhash, as a validator moves on after including transactions. */
  nextSlot(): void {
    this.svm.warpToSlot(this.slot() + 1n);
    this.svm.expireBlockhash();
    this.recent.record(this.slot());
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
        // Block heights here are slots: every slot has a block, and lastValidBlockHeight below counts in them.
        return Number(this.slot());
      case 'getEpochInfo':
        return this.epochInfo();
      case 'isBlockhashValid':
        if (typeof params[0] !== 'string') return fail(-32602, 'Invalid param: expected a blockhash');
        return { context, value: this.recent.isValid(params[0], this.slot()) };
      case 'getLatestBlockhash':
        return { context, value: { blockhash: this.svm.latestBlockhash(), lastValidBlockHeight: Number(this.slot()) + 150 } };
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
        return { context, value: asList(params[0]).map((s) => this.status(String(s))) };
      default:
        return fail(-32601, `Method not found: ${method} is not served by the local LiteSVM node`);
    }
  }

  /** Slot and block height of the one bank there is, with the epoch the SVM's epoch schedule puts that slot in. */
  private epochInfo(): unknown {
    const slot = this.slot();
    const { epoch, slotIndex, slotsInEpoch } = epochOf(this.svm.getEpochSchedule(), slot);
    // Block heights here are slots (see getBlockHeight). LiteSVM keeps no transaction count.
    return {
      absoluteSlot: Number(slot),
      blockHeight: Number(slot),
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
    const [wire, config] = params as [unknown, { encoding?: string } | undefined];
    if (typeof wire !== 'string') return fail(-32602, 'invalid transaction: expected an encoded string');
    if (config?.encoding !== 'base64') return fail(-32602, 'the local node accepts base64-encoded transactions only');
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
    const stale = this.recent.refusal(Uint8Array.from(tx.messageBytes), this.slot());
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
    const result = this.svm.sendTransaction(tx);
    if (result instanceof FailedTransactionMetadata) {
      const err = describeFailure(result);
      return fail(-32002, `Transaction simulation failed: ${err}`, { err, logs: result.meta().logs() });
    }
    this.landed.set(signature, { slot: this.slot() });
    this.nextSlot();
    return signature;
  }

  /** Signatures of the transactions executed through sendTransaction, in order. */
  executed(): string[] {
    return [...this.landed.keys()];
  }

  private status(signature: string): unknown {
    const hit = this.landed.get(signature as Signature);
    if (!hit) return null;
    // One in-process node with no forks: an executed transaction is final at once.
    return { slot: Number(hit.slot), confirmations: null, err: null, confirmationStatus: 'finalized', status: { Ok: null } };
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
  if (!Array.isArray(v)) return fail(-32602, 'expected an array of addresses or signatures');
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

/** LiteSVM's error as text: the fieldless ones are enum numbers, so name them from its debug form. */
function describeFailure(result: FailedTransactionMetadata): string {
  const err = result.err();
  const text = typeof err === 'object' ? `${err.constructor.name} ${JSON.stringify(err, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v))}` : '';
  const debug = result.toString();
  const named = /err: ([A-Za-z]+(?:\([^)]*\))?)/.exec(debug)?.[1];
  return named ?? (text || debug.slice(0, 500));
}
