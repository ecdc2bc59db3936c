import { NodeRejectionError, type RejectionKind } from '../../../src/platform/errors.js';
import { describeCodes } from '../logic/result-codes.js';
import type { ResultCodes } from './horizon.js';

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
