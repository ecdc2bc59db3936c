import { xdr } from '@stellar/stellar-sdk';
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
 */
export interface ResultCodeRow {
  code: string;
  kind: RejectionKind;
  /** Whether the same signed envelope can be accepted later. */
  retryable: boolean;
}

export const HORIZON_RESULT_CODES: readonly ResultCodeRow[] = [
  // Surge pricing: the fee may be enough once the ledger is less busy.
  { code: 'tx_insufficient_fee', kind: 'fee_too_low', retryable: true },
  { code: 'tx_too_early', kind: 'not_final', retryable: true },
  { code: 'tx_internal_error', kind: 'ledger_result', retryable: true },
  { code: 'tx_bad_seq', kind: 'nonce_taken', retryable: false },
  { code: 'tx_insufficient_balance', kind: 'insufficient_funds', retryable: false },
  { code: 'op_underfunded', kind: 'insufficient_funds', retryable: false },
  { code: 'op_low_reserve', kind: 'insufficient_funds', retryable: false },
  { code: 'tx_bad_auth', kind: 'invalid', retryable: false },
  { code: 'tx_bad_auth_extra', kind: 'invalid', retryable: false },
  { code: 'tx_malformed', kind: 'invalid', retryable: false },
  { code: 'op_malformed', kind: 'invalid', retryable: false },
  { code: 'tx_too_late', kind: 'ledger_result', retryable: false },
  { code: 'tx_no_source_account', kind: 'ledger_result', retryable: false },
  { code: 'op_no_destination', kind: 'ledger_result', retryable: false },
  { code: 'op_no_trust', kind: 'ledger_result', retryable: false },
  { code: 'op_already_exists', kind: 'ledger_result', retryable: false },
];

function rowFor(codes: ResultCodes): ResultCodeRow | undefined {
  const failing = (codes.operations ?? []).filter((c) => c !== 'op_success');
  for (const code of [...failing, codes.transaction]) {
    const row = HORIZON_RESULT_CODES.find((r) => r.code === code);
    if (row) return row;
  }
  return undefined;
}

/** Horizon's refusal as a typed error; `details` is the codes in words. */
export function horizonRejection(codes: ResultCodes, override?: { kind: RejectionKind; retryable: boolean; details?: string }): NodeRejectionError {
  const row = override ?? rowFor(codes) ?? { kind: 'ledger_result' as const, retryable: false };
  return new NodeRejectionError(row.kind, override?.details ?? describeCodes(codes), row.retryable, { resultCodes: codes });
}
