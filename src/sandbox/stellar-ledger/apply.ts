import {
  Asset,
  extractBaseAddress,
  FeeBumpTransaction,
  Keypair,
  TransactionBuilder,
  type Operation,
  type Transaction,
} from '@stellar/stellar-sdk';
import { assetKey, cloneAccount, MAX_INT64, type AccountEntry, type LedgerState, type TxRecord } from './ledger.js';
import { opFailureXdr, successXdr, txFailureXdr, type OpKind, type OpOutcome } from './results.js';

/**
 * Validates and applies one submitted envelope the way stellar-core does for the operations
 * the simulator knows. Transaction-level failures (bad sequence, bad auth, fee, time bounds)
 * reject the envelope without touching the ledger; operation failures are applied as a failed
 * transaction that still consumes the sequence number and pays the fee, as on the network.
 */

export type SubmitOutcome =
  | { kind: 'applied'; record: TxRecord; duplicate: boolean }
  | { kind: 'rejected'; transaction: string; resultXdr: string; envelopeXdr: string }
  | { kind: 'malformed'; reason: string };

function stroops(decimal: string): bigint {
  const [int = '0', frac = ''] = decimal.split('.');
  return BigInt(int + frac.padEnd(7, '0'));
}

/** A signature counts only if it verifies, through the SDK, over this transaction's hash. */
function signedBy(tx: Transaction, account: string): number[] {
  const kp = Keypair.fromPublicKey(account);
  const hint = kp.signatureHint();
  const hash = tx.hash();
  return tx.signatures.flatMap((s, i) => (s.hint().equals(hint) && kp.verify(hash, s.signature()) ? [i] : []));
}

function rejected(code: string, envelopeXdr: string): SubmitOutcome {
  return { kind: 'rejected', transaction: code, resultXdr: txFailureXdr(code), envelopeXdr };
}

export function submitEnvelope(state: LedgerState, passphrase: string, envelopeXdr: string): SubmitOutcome {
  let parsed: Transaction | FeeBumpTransaction;
  try {
    parsed = TransactionBuilder.fromXDR(envelopeXdr, passphrase);
  } catch (e) {
    return { kind: 'malformed', reason: (e as Error).message };
  }
  const hash = parsed.hash().toString('hex');
  const known = state.transactions.get(hash);
  // Horizon answers a resubmission of a transaction already in history with that result.
  if (known) return { kind: 'applied', record: known, duplicate: true };
  if (parsed instanceof FeeBumpTransaction) return rejected('tx_not_supported', envelopeXdr);
  const tx = parsed;

  const ops = tx.operations;
  if (ops.length === 0) return rejected('tx_missing_operation', envelopeXdr);
  const closeTime = BigInt(Math.floor(state.now() / 1000));
  if (tx.timeBounds) {
    if (BigInt(tx.timeBounds.minTime) > closeTime) return rejected('tx_too_early', envelopeXdr);
    const max = BigInt(tx.timeBounds.maxTime);
    if (max !== 0n && max < closeTime) return rejected('tx_too_late', envelopeXdr);
  }
  const maxFee = BigInt(tx.fee);
  const minFee = state.rules.baseFee * BigInt(ops.length);
  if (maxFee < minFee) return rejected('tx_insufficient_fee', envelopeXdr);
  const sourceId = extractBaseAddress(tx.source);
  const source = state.accounts.get(sourceId);
  if (!source) return rejected('tx_no_source_account', envelopeXdr);
  if (BigInt(tx.sequence) !== source.sequence + 1n) return rejected('tx_bad_seq', envelopeXdr);

  // Every account that must authorise (transaction and operation sources) needs its
  // master-key signature; signatures nobody needed are rejected as stellar-core does.
  const signers = new Set([sourceId, ...ops.flatMap((op) => (op.source ? [extractBaseAddress(op.source)] : []))]);
  const used = new Set<number>();
  for (const signer of signers) {
    if (!state.accounts.has(signer) && signer !== sourceId) continue;
    const matches = signedBy(tx, signer);
    if (matches.length === 0) return rejected('tx_bad_auth', envelopeXdr);
    matches.forEach((i) => used.add(i));
  }
  if (used.size !== tx.signatures.length) return rejected('tx_bad_auth_extra', envelopeXdr);
  if (state.available(source) < minFee) return rejected('tx_insufficient_balance', envelopeXdr);

  // Fee and sequence are taken before operations run and stay taken if they fail.
  source.balance -= minFee;
  source.sequence = BigInt(tx.sequence);
  const ledgerSeq = state.latest().sequence + 1;
  source.lastModifiedLedger = ledgerSeq;

  const work = new Map<string, AccountEntry>();
  const outcomes = ops.map((op) => applyOp(state, work, op, extractBaseAddress(op.source ?? tx.source), ledgerSeq));
  const successful = outcomes.every((o) => o.code === 'op_success');
  if (successful) for (const [id, a] of work) state.accounts.set(id, a);

  const memo = tx.memo;
  const record: TxRecord = {
    hash,
    ledger: ledgerSeq,
    createdAt: state.now(),
    sourceAccount: tx.source,
    sequence: BigInt(tx.sequence),
    feeCharged: minFee,
    maxFee,
    operationCount: ops.length,
    successful,
    operationCodes: outcomes.map((o) => o.code),
    envelopeXdr,
    resultXdr: successful ? successXdr(minFee, outcomes) : opFailureXdr(minFee, outcomes),
    memoType: memo.type,
    memo:
      memo.value === null || memo.value === undefined
        ? undefined
        : Buffer.isBuffer(memo.value)
          ? memo.value.toString(memo.type === 'text' ? 'utf8' : 'base64')
          : String(memo.value),
    signatures: tx.signatures.map((s) => s.signature().toString('base64')),
    timeBounds: tx.timeBounds ? { minTime: tx.timeBounds.minTime, maxTime: tx.timeBounds.maxTime } : undefined,
  };
  state.transactions.set(hash, record);
  state.close([record]);
  return { kind: 'applied', record, duplicate: false };
}

/** Operation effects go to `work` (copies), committed only if every operation succeeds. */
function applyOp(
  state: LedgerState,
  work: Map<string, AccountEntry>,
  op: Operation,
  sourceId: string,
  ledgerSeq: number,
): OpOutcome {
  const get = (id: string): AccountEntry | undefined => {
    const cached = work.get(id);
    if (cached) return cached;
    const live = state.accounts.get(id);
    if (!live) return undefined;
    const copy = cloneAccount(live);
    work.set(id, copy);
    return copy;
  };
  const result = (kind: OpKind, code: string): OpOutcome => ({ kind, code });
  const src = get(sourceId);
  if (!src) return result('other', 'op_no_source_account');
  src.lastModifiedLedger = ledgerSeq;

  if (op.type === 'createAccount') {
    const amount = stroops(op.startingBalance);
    if (amount < 0n) return result('createAccount', 'op_malformed');
    if (get(op.destination)) return result('createAccount', 'op_already_exists');
    if (amount < 2n * state.rules.baseReserve) return result('createAccount', 'op_low_reserve');
    if (state.available(src) < amount) return result('createAccount', 'op_underfunded');
    src.balance -= amount;
    work.set(op.destination, {
      id: op.destination,
      balance: amount,
      // stellar-core seeds a new account's sequence with the ledger number in the high 32 bits.
      sequence: BigInt(ledgerSeq) << 32n,
      subentries: 0,
      trustlines: new Map(),
      lastModifiedLedger: ledgerSeq,
    });
    return result('createAccount', 'op_success');
  }

  if (op.type === 'payment') {
    const amount = stroops(op.amount);
    if (amount <= 0n) return result('payment', 'op_malformed');
    const dest = get(extractBaseAddress(op.destination));
    if (!dest) return result('payment', 'op_no_destination');
    dest.lastModifiedLedger = ledgerSeq;
    if (op.asset.isNative()) {
      if (state.available(src) < amount) return result('payment', 'op_underfunded');
      src.balance -= amount;
      if (dest.balance + amount > MAX_INT64) return result('payment', 'op_line_full');
      dest.balance += amount;
      return result('payment', 'op_success');
    }
    const key = assetKey(op.asset.getCode(), op.asset.getIssuer());
    const issuer = op.asset.getIssuer();
    // The issuer mints and burns its own asset: it holds no trustline for it.
    if (src.id !== issuer) {
      const line = src.trustlines.get(key);
      if (!line) return result('payment', 'op_src_no_trust');
      if (line.balance < amount) return result('payment', 'op_underfunded');
      line.balance -= amount;
      line.lastModifiedLedger = ledgerSeq;
    }
    if (dest.id !== issuer) {
      const line = dest.trustlines.get(key);
      if (!line) return result('payment', 'op_no_trust');
      if (line.balance + amount > line.limit) return result('payment', 'op_line_full');
      line.balance += amount;
      line.lastModifiedLedger = ledgerSeq;
    }
    return result('payment', 'op_success');
  }

  if (op.type === 'changeTrust') {
    if (!(op.line instanceof Asset) || op.line.isNative()) return result('changeTrust', 'op_malformed');
    const limit = stroops(op.limit);
    if (limit < 0n) return result('changeTrust', 'op_malformed');
    const issuer = op.line.getIssuer();
    if (issuer === src.id) return result('changeTrust', 'op_self_not_allowed');
    const key = assetKey(op.line.getCode(), issuer);
    const line = src.trustlines.get(key);
    if (line) {
      if (limit < line.balance) return result('changeTrust', 'op_invalid_limit');
      if (limit === 0n) {
        src.trustlines.delete(key);
        src.subentries -= 1;
      } else {
        line.limit = limit;
        line.lastModifiedLedger = ledgerSeq;
      }
      return result('changeTrust', 'op_success');
    }
    if (limit === 0n) return result('changeTrust', 'op_invalid_limit');
    if (!get(issuer)) return result('changeTrust', 'op_no_issuer');
    if (src.balance < state.minBalance(src, 1)) return result('changeTrust', 'op_low_reserve');
    src.trustlines.set(key, { balance: 0n, limit, lastModifiedLedger: ledgerSeq });
    src.subentries += 1;
    return result('changeTrust', 'op_success');
  }

  return result('other', 'op_not_supported');
}
