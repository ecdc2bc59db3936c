import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import { mapNodeError, nodeHost, type RpcErrorBody } from './errors.js';
import type { HttpAnswer, HttpFetch } from '../../../src/platform/http-client.js';

/** An account as `getMultipleAccounts` returns it with base64 data; null when it does not exist. */
export interface RpcAccount {
  lamports: number;
  owner: string;
  data: [string, 'base64'];
}

export interface RpcSignatureStatus {
  slot: number;
  confirmations: number | null;
  err: unknown;
  confirmationStatus?: 'processed' | 'confirmed' | 'finalized' | null;
}

/** An answer as the node gave it at `slot` (its `context.slot`): how far along that node was when it answered. */
export interface AtSlot<T> {
  slot: number;
  value: T;
}

/** A token account's balance in a transaction's meta (`getBlock`, json encoding). */
export interface RpcTokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  programId?: string;
  uiTokenAmount: { amount: string; decimals: number };
}

/** A transaction of a block as `getBlock` gives it with json encoding. */
export interface RpcBlockTransaction {
  transaction: { signatures: string[]; message: { accountKeys: string[]; instructions: { programIdIndex: number; accounts: number[]; data: string }[] } };
  meta: {
    err: unknown;
    fee: number;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances?: RpcTokenBalance[] | null;
    postTokenBalances?: RpcTokenBalance[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
}

export interface RpcBlock {
  blockhash: string;
  previousBlockhash: string;
  parentSlot: number;
  blockHeight: number | null;
  /** Unix seconds; null where the node does not know it. */
  blockTime: number | null;
  transactions?: RpcBlockTransaction[];
}

const TIMEOUT_MS = 15_000;

/** How settled a bank an answer is read from: voted on by a supermajority, or rooted (final). */
export type Commitment = 'confirmed' | 'finalized';

/**
 * Solana JSON-RPC over an injected fetch: only the methods the adaptor uses. Transport
 * trouble is a retryable UnavailableError; node errors are mapped once, in errors.ts.
 */
export class SolanaRpc {
  private id = 0;
  /** The node's host, as refusals name it (never the path or query: providers put keys there). */
  readonly node: string | undefined;

  constructor(
    private readonly url: string,
    private readonly fetchFn: HttpFetch,
  ) {
    this.node = nodeHost(url);
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    let res: HttpAnswer;
    try {
      res = await this.fetchFn(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: ++this.id, method, params }),
        signal: AbortSignal.timeout(TIMEOUT_MS),
      });
    } catch (e) {
      throw new UnavailableError(`Solana RPC ${method}: ${(e as Error).message}`, e);
    }
    if (res.status === 429 || res.status >= 500) throw new UnavailableError(`Solana RPC ${method}: HTTP ${res.status}`);
    let body: { result?: T; error?: RpcErrorBody };
    try {
      body = (await res.json()) as typeof body;
    } catch (e) {
      throw new UpstreamError(`Solana RPC ${method}: HTTP ${res.status} with a body that is not JSON`, true, e);
    }
    if (body.error) throw mapNodeError(method, body.error, this.node);
    if (!('result' in body)) throw new UpstreamError(`Solana RPC ${method}: answer without result`, true);
    return body.result as T;
  }

  getSlot(commitment: string): Promise<number> {
    return this.call('getSlot', [{ commitment }]);
  }

  getGenesisHash(): Promise<string> {
    return this.call('getGenesisHash');
  }

  /**
   * The block height and slot of one and the same bank (at `commitment`), unlike `getBlockHeight`
   * and `getSlot` asked apart, which a load balancer may answer from different nodes.
   */
  async getEpochInfo(commitment: Commitment = 'confirmed'): Promise<{ absoluteSlot: number; blockHeight: number }> {
    const r = await this.call<{ absoluteSlot?: unknown; blockHeight?: unknown }>('getEpochInfo', [{ commitment }]);
    if (typeof r.absoluteSlot !== 'number' || typeof r.blockHeight !== 'number')
      throw new UpstreamError('Solana RPC getEpochInfo: answer without absoluteSlot and blockHeight', true);
    return { absoluteSlot: r.absoluteSlot, blockHeight: r.blockHeight };
  }

  async getMultipleAccounts(addresses: string[]): Promise<(RpcAccount | null)[]> {
    const out: (RpcAccount | null)[] = [];
    // The RPC takes at most 100 addresses per call.
    for (let i = 0; i < addresses.length; i += 100) {
      const r = await this.call<{ value: (RpcAccount | null)[] }>('getMultipleAccounts', [
        addresses.slice(i, i + 100),
        { encoding: 'base64', commitment: 'confirmed' },
      ]);
      out.push(...r.value);
    }
    return out;
  }

  /** One account with the slot of the answer, as of the bank at `commitment`. */
  async getAccountAt(address: string, commitment: Commitment = 'confirmed'): Promise<AtSlot<RpcAccount | null>> {
    const r = await this.call<{ context?: { slot?: unknown }; value: (RpcAccount | null)[] }>('getMultipleAccounts', [
      [address],
      { encoding: 'base64', commitment },
    ]);
    return { slot: contextSlot('getMultipleAccounts', r), value: r.value[0] ?? null };
  }

  /** Whether the node's bank at `commitment` still accepts this blockhash, with the slot of the answer. */
  async isBlockhashValid(blockhash: string, commitment: Commitment = 'confirmed'): Promise<AtSlot<boolean>> {
    const r = await this.call<{ context?: { slot?: unknown }; value: unknown }>('isBlockhashValid', [blockhash, { commitment }]);
    if (typeof r.value !== 'boolean') throw new UpstreamError('Solana RPC isBlockhashValid: answer without a boolean value', true);
    return { slot: contextSlot('isBlockhashValid', r), value: r.value };
  }

  async getLatestBlockhash(): Promise<{ blockhash: string; lastValidBlockHeight: number }> {
    return (await this.call<{ value: { blockhash: string; lastValidBlockHeight: number } }>('getLatestBlockhash', [{ commitment: 'confirmed' }])).value;
  }

  async rentExemptMinimum(space: number): Promise<bigint> {
    return BigInt(await this.call<number>('getMinimumBalanceForRentExemption', [space]));
  }

  getRecentPrioritizationFees(accounts: string[]): Promise<{ slot: number; prioritizationFee: number }[]> {
    return this.call('getRecentPrioritizationFees', [accounts]);
  }

  /**
   * The block at `slot` as the bank at `commitment` has it (json encoding, v0 transactions
   * read, no rewards); `details: 'none'` for its header only. Null when the node answers none;
   * a skipped slot is a SlotSkippedError, one not reached yet a BlockNotAvailableError.
   */
  getBlock(slot: number, commitment: Commitment, details: 'full' | 'none'): Promise<RpcBlock | null> {
    return this.call('getBlock', [slot, { encoding: 'json', transactionDetails: details, maxSupportedTransactionVersion: 0, rewards: false, commitment }]);
  }

  /** The slots from `start` to `end` that have a block, at `commitment`. */
  getBlocks(start: number, end: number, commitment: Commitment): Promise<number[]> {
    return this.call('getBlocks', [start, end, { commitment }]);
  }

  sendTransaction(base64: string): Promise<string> {
    return this.call('sendTransaction', [base64, { encoding: 'base64', preflightCommitment: 'confirmed' }]);
  }

  async getSignatureStatus(signature: string): Promise<RpcSignatureStatus | null> {
    return (await this.getSignatureStatusAt(signature)).value;
  }

  /** The signature's status (history searched) with the slot the answering node had reached. */
  async getSignatureStatusAt(signature: string): Promise<AtSlot<RpcSignatureStatus | null>> {
    const r = await this.call<{ context?: { slot?: unknown }; value: (RpcSignatureStatus | null)[] }>('getSignatureStatuses', [
      [signature],
      { searchTransactionHistory: true },
    ]);
    return { slot: contextSlot('getSignatureStatuses', r), value: r.value[0] ?? null };
  }
}

/** The `context.slot` of an RPC answer; an answer without one tells nothing of how current it is. */
function contextSlot(method: string, r: { context?: { slot?: unknown } }): number {
  const slot = r.context?.slot;
  if (typeof slot !== 'number' || !Number.isSafeInteger(slot) || slot < 0) throw new UpstreamError(`Solana RPC ${method}: answer without context.slot`, true);
  return slot;
}
