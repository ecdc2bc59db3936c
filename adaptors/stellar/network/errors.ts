import { xdr } from '@stellar/stellar-base';
import { NodeRejectionError, type RejectionKind } from '../../../src/platform/errors.js';
import type { ResultCodes } from './horizon.js';

/** Horizon result codes in words, for the reason an operation ends FAILED with. */
const MEANING: Record<string, string> = {
  tx_failed: 'an operation failed (the fee and sequence number were still consumed)',
  tx_too_early: 'the time bounds have not started yet',
  tx_too_late: 'the time bounds passed before the transaction reached the ledger',
  tx_missing_operation: 'the transaction has no operation',
  tx_bad_seq: 'the sequence number does not follow the account’s',
  tx_bad_auth: 'the signature is missing or does not verify for the source account',
  tx_insufficient_balance: 'the source account cannot pay the fee without going below its reserve',
  tx_no_source_account: 'the source account does not exist',
  tx_insufficient_fee: 'the fee is below what the network requires',
  tx_bad_auth_extra: 'the transaction carries signatures no account needs',
  tx_internal_error: 'stellar-core reported an internal error',
  tx_not_supported: 'the ledger does not support this transaction type',
  tx_malformed: 'the transaction is malformed',
  op_underfunded: 'the source account lacks the funds for the amount',
  op_src_no_trust: 'the source account has no trustline for the asset',
  op_src_not_authorized: 'the source account is not authorised to hold the asset',
  op_no_destination: 'the destination account does not exist',
  op_no_trust: 'the destination account has no trustline for the asset',
  op_not_authorized: 'the destination is not authorised to hold the asset',
  op_line_full: 'the destination’s trustline limit would be exceeded',
  op_no_issuer: 'the asset’s issuer does not exist',
  op_low_reserve: 'the amount is below a new account’s minimum balance',
  op_already_exists: 'the account to create already exists',
  op_malformed: 'the operation is malformed',
  op_bad_auth: 'an operation lacks its signature',
  op_no_source_account: 'an operation’s source account does not exist',
  op_not_supported: 'the operation is not supported',
};

/** `tx_failed [op_no_trust]: the destination account has no trustline for the asset`. */
export function describeCodes(codes: ResultCodes): string {
  const failing = (codes.operations ?? []).filter((c) => c !== 'op_success');
  const head = `${codes.transaction}${failing.length ? ` [${failing.join(', ')}]` : ''}`;
  const words = (failing.length ? failing : [codes.transaction]).map((c) => MEANING[c] ?? c).join('; ');
  return `${head}: ${words}`;
}

const snake = (camel: string) => camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
const OP_PREFIX =
  /^(payment|createAccount|changeTrust|pathPaymentStrictReceive|pathPaymentStrictSend|manageSellOffer|manageBuyOffer|setOptions|allowTrust|accountMerge|manageData|bumpSequence|createClaimableBalance|claimClaimableBalance|clawback|setTrustLineFlags)/;

/** Result codes from a `result_xdr`, spelled as Horizon spells them (close enough for a reason). */
export function codesFromResultXdr(resultXdr: string): ResultCodes {
  const result = xdr.TransactionResult.fromXDR(resultXdr, 'base64').result();
  const transaction = snake(result.switch().name);
  const name = result.switch().name;
  if (name !== 'txFailed' && name !== 'txSuccess') return { transaction };
  const operations = result.results().map((r) => {
    if (r.switch().name !== 'opInner') return r.switch().name === 'opNoAccount' ? 'op_no_source_account' : snake(r.switch().name);
    const inner = snake(r.tr().value().switch().name.replace(OP_PREFIX, 'op'));
    return inner === 'op_already_exist' ? 'op_already_exists' : inner;
  });
  return { transaction, operations };
}

/**
 * Horizon's result codes (stellar-core's TransactionResultCode and operation result codes, as
 * Horizon spells them in `extras.result_codes`) read in this one place. An operation code decides
 * before the transaction code it sits under (`tx_failed`); a code not listed is a permanent
 * `ledger_result`. `tx_bad_seq` is refined by the broadcast, which asks the account whether the
 * number is still ahead (retryable) or passed (taken).
 *
 * `invalidForever` only where the envelope's own bytes can never be valid, on any node, at any
 * time: a malformed transaction or operation, none at all. Everything else speaks of the state a
 * node saw, which changes or differs between nodes, so it proves nothing about the signed bytes:
 * - `tx_bad_auth`, `tx_bad_auth_extra`: combine already checked the vault's signature over this
 *   network's hash, so the node's "does not verify" is about the account's signers and
 *   thresholds as that node has them (changed by a set_options, or a node that lags behind one),
 *   which the account's owner can change back. A Horizon of another network would say the same
 *   of every envelope; health checks the passphrase.
 * - `tx_bad_seq`: the number may be ahead (an earlier withdrawal not in yet) or taken, and what
 *   took it may be this withdrawal's own transaction (the same bytes sent elsewhere, a fee-bump):
 *   the status check reads which, from a closed ledger.
 * - `tx_too_late`: the node's own estimate of the next close time; the status check proves expiry
 *   from a closed ledger past the bound.
 * - `tx_insufficient_balance`, `op_underfunded`, `op_low_reserve`: funds can arrive.
 * - `op_no_destination`, `op_no_trust`, `tx_no_source_account`, `op_already_exists`: accounts
 *   and trustlines come and go (the recipient may create its account or trustline).
 * - `tx_not_supported`: a protocol upgrade changes what the ledger supports.
 * An operation code under `tx_failed` from a synchronous submission usually means the
 * transaction applied as failed (fee and sequence number spent): the status check then finds it
 * in its ledger and the withdrawal ends FAILED at the ledger's depth, as proven.
 */
export interface ResultCodeRow {
  code: string;
  kind: RejectionKind;
  /** Whether the same signed envelope can be accepted later. */
  retryable: boolean;
  /** Whether the envelope's own bytes can never be valid: only then does the refusal prove the withdrawal never pays. */
  invalidForever: boolean;
}

export const HORIZON_RESULT_CODES: readonly ResultCodeRow[] = [
  // Surge pricing: the fee may be enough once the ledger is less busy.
  { code: 'tx_insufficient_fee', kind: 'fee_too_low', retryable: true, invalidForever: false },
  { code: 'tx_too_early', kind: 'not_final', retryable: true, invalidForever: false },
  { code: 'tx_internal_error', kind: 'ledger_result', retryable: true, invalidForever: false },
  { code: 'tx_bad_seq', kind: 'nonce_taken', retryable: false, invalidForever: false },
  { code: 'tx_insufficient_balance', kind: 'insufficient_funds', retryable: false, invalidForever: false },
  { code: 'op_underfunded', kind: 'insufficient_funds', retryable: false, invalidForever: false },
  { code: 'op_low_reserve', kind: 'insufficient_funds', retryable: false, invalidForever: false },
  { code: 'tx_bad_auth', kind: 'invalid', retryable: false, invalidForever: false },
  { code: 'tx_bad_auth_extra', kind: 'invalid', retryable: false, invalidForever: false },
  { code: 'tx_malformed', kind: 'invalid', retryable: false, invalidForever: true },
  { code: 'tx_missing_operation', kind: 'invalid', retryable: false, invalidForever: true },
  { code: 'op_malformed', kind: 'invalid', retryable: false, invalidForever: true },
  { code: 'tx_not_supported', kind: 'ledger_result', retryable: false, invalidForever: false },
  { code: 'tx_too_late', kind: 'ledger_result', retryable: false, invalidForever: false },
  { code: 'tx_no_source_account', kind: 'ledger_result', retryable: false, invalidForever: false },
  { code: 'op_no_destination', kind: 'ledger_result', retryable: false, invalidForever: false },
  { code: 'op_no_trust', kind: 'ledger_result', retryable: false, invalidForever: false },
  { code: 'op_already_exists', kind: 'ledger_result', retryable: false, invalidForever: false },
];

function rowFor(codes: ResultCodes): ResultCodeRow | undefined {
  const failing = (codes.operations ?? []).filter((c) => c !== 'op_success');
  for (const code of [...failing, codes.transaction]) {
    const row = HORIZON_RESULT_CODES.find((r) => r.code === code);
    if (row) return row;
  }
  return undefined;
}

/**
 * Horizon's refusal as a typed error; `details` is the codes in words, `node` the answering
 * Horizon's host (never its path or query, where providers put keys). A code not in the table
 * proves nothing: permanent for now, never invalid forever.
 */
export function horizonRejection(
  codes: ResultCodes,
  override?: { kind: RejectionKind; retryable: boolean; details?: string },
  node?: string,
): NodeRejectionError {
  const row = override ?? rowFor(codes) ?? { kind: 'ledger_result' as const, retryable: false };
  const invalidForever = 'invalidForever' in row && row.invalidForever;
  return new NodeRejectionError(
    row.kind,
    override?.details ?? describeCodes(codes),
    row.retryable,
    { resultCodes: codes, ...(node ? { node } : {}) },
    { invalidForever },
  );
}

/** The host of a back end's URL, as a refusal names the node that answered: no credentials, path or query. */
export function nodeHost(url: string): string | undefined {
  try {
    return new URL(url).host || undefined;
  } catch {
    return undefined;
  }
}
