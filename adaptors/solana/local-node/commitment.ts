import { fail } from './rpc-error.js';

/**
 * The local node's commitment model, for getSignatureStatuses. One node with no forks and no
 * votes: the cluster it stands for is modelled by depth alone. A transaction in the block of
 * slot S is
 * - `processed` while the node's latest slot is S (its block exists, no vote on it yet);
 * - `confirmed` from slot S + 1 (a supermajority voted on it in the next slot);
 * - `finalized` from slot S + `finalityDepth` (rooted: mainnet roots about 32 slots behind the
 *   tip; the local node defaults to 2 so tests and the sandbox stay fast).
 * `confirmations` counts the slots since S until it is rooted, then is null, as Agave's
 * TransactionStatus does (rpc.rs get_transaction_status).
 */

/** Agave's MAX_GET_SIGNATURE_STATUSES_QUERY_ITEMS. */
const MAX_SIGNATURES = 256;
/** Rooted slots the bank's status cache keeps (MAX_RECENT_BLOCKHASHES); older signatures are found in the ledger only, with searchTransactionHistory. */
const STATUS_CACHE_ROOTED_SLOTS = 300;
export const DEFAULT_FINALITY_DEPTH = 2;

export interface LandedTx {
  slot: number;
  err: unknown;
}

export type ConfirmationStatus = 'processed' | 'confirmed' | 'finalized';

/** Slots behind the tip a block is rooted; at least 1 (a block is confirmed no later than it is rooted). */
export function finalityDepthOf(depth: number | undefined): number {
  const d = depth ?? DEFAULT_FINALITY_DEPTH;
  if (!Number.isSafeInteger(d) || d < 1) throw new Error(`the local Solana node's finality depth must be a whole number of slots, at least 1, not ${d}`);
  return d;
}

/** The commitment a block at `slot` has reached with the node at `tip`. */
export function commitmentOf(slot: number, tip: number, depth: number): ConfirmationStatus {
  if (tip - slot >= depth) return 'finalized';
  return tip > slot ? 'confirmed' : 'processed';
}

/**
 * getSignatureStatuses' answer (its `value`), as Agave's get_signature_statuses: a signature
 * the status cache knows (landed in an unrooted slot or in the last 300 rooted ones) with its
 * commitment; an older one only when `searchTransactionHistory` asks the ledger, finalized.
 * Strict where Agave's serde is lenient: a config key it does not know is refused.
 */
export function signatureStatuses(params: unknown[], lookup: (signature: string) => LandedTx | undefined, tip: number, depth: number): unknown[] {
  const [signatures, config] = params;
  if (!Array.isArray(signatures)) return fail(-32602, 'Invalid params: expected an array of signatures');
  if (signatures.length > MAX_SIGNATURES) return fail(-32602, `Too many inputs provided; max ${MAX_SIGNATURES}`);
  const search = searchHistory(config);
  const root = tip - depth;
  return signatures.map((s) => {
    if (typeof s !== 'string' || !/^[1-9A-HJ-NP-Za-km-z]{64,88}$/.test(s)) return fail(-32602, `Invalid param: ${String(s)} is not a base58 signature`);
    const hit = lookup(s);
    if (!hit) return null;
    const inCache = hit.slot > root - STATUS_CACHE_ROOTED_SLOTS;
    if (!inCache && !search) return null;
    const confirmationStatus = commitmentOf(hit.slot, tip, depth);
    return {
      slot: hit.slot,
      confirmations: confirmationStatus === 'finalized' ? null : tip - hit.slot,
      err: hit.err,
      status: hit.err === null ? { Ok: null } : { Err: hit.err },
      confirmationStatus,
    };
  });
}

function searchHistory(config: unknown): boolean {
  if (config === undefined || config === null) return false;
  if (typeof config !== 'object' || Array.isArray(config)) return fail(-32602, 'Invalid params: expected a config object');
  for (const key of Object.keys(config))
    if (key !== 'searchTransactionHistory') return fail(-32602, `Invalid params: unknown field \`${key}\`, expected \`searchTransactionHistory\``);
  const search = (config as { searchTransactionHistory?: unknown }).searchTransactionHistory ?? false;
  if (typeof search !== 'boolean') return fail(-32602, 'Invalid params: invalid type: expected a boolean for searchTransactionHistory');
  return search;
}
