import { xdr } from '@stellar/stellar-sdk';

/**
 * Horizon's result code strings and the TransactionResult XDR stellar-core would produce
 * for them, so `result_xdr` in responses decodes the way a real one does.
 */

export type OpKind = 'payment' | 'createAccount' | 'changeTrust' | 'manageData' | 'bumpSequence' | 'other';

/** Horizon code → arm name of the operation's XDR result union. */
const OP_ARMS: Record<Exclude<OpKind, 'other'>, Record<string, string>> = {
  payment: {
    op_success: 'paymentSuccess',
    op_malformed: 'paymentMalformed',
    op_underfunded: 'paymentUnderfunded',
    op_src_no_trust: 'paymentSrcNoTrust',
    op_no_destination: 'paymentNoDestination',
    op_no_trust: 'paymentNoTrust',
    op_line_full: 'paymentLineFull',
  },
  createAccount: {
    op_success: 'createAccountSuccess',
    op_malformed: 'createAccountMalformed',
    op_underfunded: 'createAccountUnderfunded',
    op_low_reserve: 'createAccountLowReserve',
    op_already_exists: 'createAccountAlreadyExist',
  },
  changeTrust: {
    op_success: 'changeTrustSuccess',
    op_malformed: 'changeTrustMalformed',
    op_no_issuer: 'changeTrustNoIssuer',
    op_invalid_limit: 'changeTrustInvalidLimit',
    op_low_reserve: 'changeTrustLowReserve',
    op_self_not_allowed: 'changeTrustSelfNotAllowed',
  },
  manageData: {
    op_success: 'manageDataSuccess',
    op_not_supported_yet: 'manageDataNotSupportedYet',
    op_data_name_not_found: 'manageDataNameNotFound',
    op_low_reserve: 'manageDataLowReserve',
    op_data_invalid_name: 'manageDataInvalidName',
  },
  bumpSequence: {
    op_success: 'bumpSequenceSuccess',
    op_bad_seq: 'bumpSequenceBadSeq',
  },
};

const TX_ARMS: Record<string, string> = {
  tx_too_early: 'txTooEarly',
  tx_too_late: 'txTooLate',
  tx_missing_operation: 'txMissingOperation',
  tx_bad_seq: 'txBadSeq',
  tx_bad_auth: 'txBadAuth',
  tx_insufficient_balance: 'txInsufficientBalance',
  tx_no_source_account: 'txNoAccount',
  tx_insufficient_fee: 'txInsufficientFee',
  tx_bad_auth_extra: 'txBadAuthExtra',
  tx_not_supported: 'txNotSupported',
  tx_malformed: 'txMalformed',
};

export interface OpOutcome {
  kind: OpKind;
  code: string;
}

type UnionFactory = Record<string, (...args: unknown[]) => unknown>;

function opResult(o: OpOutcome): xdr.OperationResult {
  if (o.kind === 'other') {
    return o.code === 'op_no_source_account' ? xdr.OperationResult.opNoAccount() : xdr.OperationResult.opNotSupported();
  }
  const arm = OP_ARMS[o.kind][o.code];
  if (!arm) throw new Error(`no XDR result for ${o.kind} ${o.code}`);
  const unions: Record<Exclude<OpKind, 'other'>, unknown> = {
    payment: xdr.PaymentResult,
    createAccount: xdr.CreateAccountResult,
    changeTrust: xdr.ChangeTrustResult,
    manageData: xdr.ManageDataResult,
    bumpSequence: xdr.BumpSequenceResult,
  };
  const inner = (unions[o.kind] as UnionFactory)[arm]?.();
  const tr = (xdr.OperationResultTr as unknown as UnionFactory)[o.kind]?.(inner) as xdr.OperationResultTr;
  return xdr.OperationResult.opInner(tr);
}

function encode(feeCharged: bigint, result: xdr.TransactionResultResult): string {
  return new xdr.TransactionResult({
    feeCharged: xdr.Int64.fromString(feeCharged.toString()),
    result,
    ext: new xdr.TransactionResultExt(0),
  }).toXDR('base64');
}

export function successXdr(feeCharged: bigint, ops: OpOutcome[]): string {
  return encode(feeCharged, xdr.TransactionResultResult.txSuccess(ops.map(opResult)));
}

export function opFailureXdr(feeCharged: bigint, ops: OpOutcome[]): string {
  return encode(feeCharged, xdr.TransactionResultResult.txFailed(ops.map(opResult)));
}

export function txFailureXdr(code: string): string {
  const arm = TX_ARMS[code];
  if (!arm) throw new Error(`no XDR result for ${code}`);
  const factory = (xdr.TransactionResultResult as unknown as UnionFactory)[arm];
  return encode(0n, factory?.() as xdr.TransactionResultResult);
}

/** A fee-bump's result (CAP-15): the outer fee charged, and the inner transaction's hash and operation results. */
export function feeBumpXdr(feeCharged: bigint, innerHash: Buffer, ops: OpOutcome[], successful: boolean): string {
  const results = ops.map(opResult);
  const inner = new xdr.InnerTransactionResult({
    feeCharged: xdr.Int64.fromString('0'),
    result: successful ? xdr.InnerTransactionResultResult.txSuccess(results) : xdr.InnerTransactionResultResult.txFailed(results),
    ext: new xdr.InnerTransactionResultExt(0),
  });
  const pair = new xdr.InnerTransactionResultPair({ transactionHash: innerHash, result: inner });
  return encode(feeCharged, successful ? xdr.TransactionResultResult.txFeeBumpInnerSuccess(pair) : xdr.TransactionResultResult.txFeeBumpInnerFailed(pair));
}
