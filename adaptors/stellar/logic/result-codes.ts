import { xdr } from '@stellar/stellar-sdk';
import type { ResultCodes } from '../network/horizon.js';

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
const OP_PREFIX = /^(payment|createAccount|changeTrust|pathPaymentStrictReceive|pathPaymentStrictSend|manageSellOffer|manageBuyOffer|setOptions|allowTrust|accountMerge|manageData|bumpSequence|createClaimableBalance|claimClaimableBalance|clawback|setTrustLineFlags)/;

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
