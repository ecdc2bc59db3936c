import { Asset, extractBaseAddress, FeeBumpTransaction, Keypair, TransactionBuilder, type Operation, type Transaction } from '@stellar/stellar-sdk';
import { assetKey, cloneAccount, MAX_INT64, type AccountEntry, type LedgerState, type PendingTx, type TxRecord } from './ledger.js';
import { feeBumpXdr, opFailureXdr, successXdr, txFailureXdr, type OpKind, type OpOutcome } from './results.js';

/**
 * Validates and applies one submitted envelope the way stellar-core does for the operations
 * the simulator knows. Transaction-level failures (bad sequence, bad auth, fee, time bounds)
 * reject the envelope without touching the ledger; operation failures are applied as a failed
 * transaction that still consumes the sequence number and pays the fee, as on the network.
 * With a surge price set, bids under it wait in a queue (Horizon's 504) until the price falls
 * or a fee-bump outbids them.
 */

export type SubmitOutcome =
  | { kind: 'applied'; record: TxRecord; duplicate: boolean }
  | { kind: 'rejected'; transaction: string; resultXdr: string; envelopeXdr: string }
  | { kind: 'malformed'; reason: string }
  /** Bid under the surge price: waiting in the queue (Horizon answers 504 and the transaction may still land). */
  | { kind: 'queued'; hash: string };

/** stellar-core's TransactionQueue FEE_MULTIPLIER: a fee-bump replaces a queued transaction only at 10x its fee rate. */
const REPLACE_MULTIPLIER = 10n;

function stroops(decimal: string): bigint {
  const [int = '0', frac = ''] = decimal.split('.');
  return BigInt(int + frac.padEnd(7, '0'));
}

/** A signature counts only if it verifies, through the SDK, over this envelope's own hash. */
function signedBy(tx: Transaction | FeeBumpTransaction, account: string): number[] {
  const kp = Keypair.fromPublicKey(account);
  const hint = kp.signatureHint();
  const hash = tx.hash();
  return tx.signatures.flatMap((s, i) => (s.hint().equals(hint) && kp.verify(hash, s.signature()) ? [i] : []));
}

function rejected(code: string, envelopeXdr: string): SubmitOutcome {
  return { kind: 'rejected', transaction: code, resultXdr: txFailureXdr(code), envelopeXdr };
}

/**
 * Transaction-level validity, as stellar-core checks it before applying: operations, time
 * bounds, the fee bid (not for the inner transaction of a fee-bump, whose fee CAP-15 ignores),
 * source account, exact sequence number, and every needed master-key signature over the
 * transaction's own hash with none to spare. Undefined when valid; else the result code.
 */
function invalidity(state: LedgerState, tx: Transaction, checkFee: boolean): string | undefined {
  const ops = tx.operations;
  if (ops.length === 0) return 'tx_missing_operation';
  const closeTime = BigInt(Math.floor(state.now() / 1000));
  if (tx.timeBounds) {
    if (BigInt(tx.timeBounds.minTime) > closeTime) return 'tx_too_early';
    const max = BigInt(tx.timeBounds.maxTime);
    if (max !== 0n && max < closeTime) return 'tx_too_late';
  }
  if (checkFee && BigInt(tx.fee) < state.rules.baseFee * BigInt(ops.length)) return 'tx_insufficient_fee';
  const sourceId = extractBaseAddress(tx.source);
  const source = state.accounts.get(sourceId);
  if (!source) return 'tx_no_source_account';
  if (BigInt(tx.sequence) !== source.sequence + 1n) return 'tx_bad_seq';
  const signers = new Set([sourceId, ...ops.flatMap((op) => (op.source ? [extractBaseAddress(op.source)] : []))]);
  const used = new Set<number>();
  for (const signer of signers) {
    if (!state.accounts.has(signer) && signer !== sourceId) continue;
    const matches = signedBy(tx, signer);
    if (matches.length === 0) return 'tx_bad_auth';
    matches.forEach((i) => used.add(i));
  }
  if (used.size !== tx.signatures.length) return 'tx_bad_auth_extra';
  return undefined;
}

/** What a transaction pays when included: the inclusion fee per slot (base fee, or the surge price) times its slots, never above its bid. */
function charge(state: LedgerState, slots: bigint, bid: bigint): bigint {
  const perSlot = state.surgeFee !== undefined && state.surgeFee > state.rules.baseFee ? state.surgeFee : state.rules.baseFee;
  const fee = perSlot * slots;
  return fee < bid ? fee : bid;
}

/** Queues a bid under the surge price (or keeps the one already queued); undefined when it can be included now. */
function queueIfSurging(state: LedgerState, key: string, pending: PendingTx): SubmitOutcome | undefined {
  if (state.surgeFee === undefined || pending.rate >= state.surgeFee) return undefined;
  state.pending.set(key, pending);
  return { kind: 'queued', hash: pending.hash };
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
  if (parsed instanceof FeeBumpTransaction) return submitFeeBump(state, parsed, hash, envelopeXdr);
  const tx = parsed;
  const bad = invalidity(state, tx, true);
  if (bad) return rejected(bad, envelopeXdr);
  const slots = BigInt(tx.operations.length);
  const queued = state.pending.get(hash);
  if (queued && queued.hash !== hash) return { kind: 'queued', hash: queued.hash };
  state.pending.delete(hash);
  const waiting = queueIfSurging(state, hash, { envelopeXdr, rate: BigInt(tx.fee) / slots, hash });
  if (waiting) return waiting;
  const sourceId = extractBaseAddress(tx.source);
  const fee = charge(state, slots, BigInt(tx.fee));
  if (state.available(state.accounts.get(sourceId) as AccountEntry) < fee) return rejected('tx_insufficient_balance', envelopeXdr);
  return { kind: 'applied', record: apply(state, tx, { hash, envelopeXdr, payer: sourceId, fee, maxFee: BigInt(tx.fee) }), duplicate: false };
}

/**
 * A fee-bump envelope (CAP-15), checked strictly: the inner transaction is valid on its own
 * (sequence, time bounds, its source's signature over the inner hash), the outer fee covers
 * the base fee for every operation plus one and bids at least the inner fee rate, the fee
 * source exists, signed the fee-bump hash (and nobody else did), and can pay. A fee-bump of a
 * queued transaction replaces it only at 10x its fee rate, as stellar-core's queue demands.
 */
function submitFeeBump(state: LedgerState, fb: FeeBumpTransaction, hash: string, envelopeXdr: string): SubmitOutcome {
  const inner = fb.innerTransaction;
  const bad = invalidity(state, inner, false);
  if (bad) return rejected(bad, envelopeXdr);
  const ops = BigInt(inner.operations.length);
  const slots = ops + 1n;
  const bid = BigInt(fb.fee);
  if (bid < state.rules.baseFee * slots || bid * ops < BigInt(inner.fee) * slots) return rejected('tx_insufficient_fee', envelopeXdr);
  const payer = extractBaseAddress(fb.feeSource);
  const payerEntry = state.accounts.get(payer);
  if (!payerEntry) return rejected('tx_no_source_account', envelopeXdr);
  const signed = signedBy(fb, payer);
  if (signed.length === 0) return rejected('tx_bad_auth', envelopeXdr);
  if (signed.length !== fb.signatures.length) return rejected('tx_bad_auth_extra', envelopeXdr);
  const innerHash = inner.hash().toString('hex');
  const rate = bid / slots;
  const queued = state.pending.get(innerHash);
  if (queued && queued.hash !== hash) {
    if (rate < REPLACE_MULTIPLIER * queued.rate) return rejected('tx_insufficient_fee', envelopeXdr);
    state.pending.delete(innerHash);
  }
  const waiting = queueIfSurging(state, innerHash, { envelopeXdr, rate, hash });
  if (waiting) return waiting;
  state.pending.delete(innerHash);
  const fee = charge(state, slots, bid);
  if (state.available(payerEntry) < fee) return rejected('tx_insufficient_balance', envelopeXdr);
  const record = apply(state, inner, {
    hash,
    envelopeXdr,
    payer,
    fee,
    maxFee: bid,
    feeBump: {
      feeAccount: fb.feeSource,
      innerHash,
      innerMaxFee: BigInt(inner.fee),
      innerSignatures: inner.signatures.map((s) => s.signature().toString('base64')),
    },
    signatures: fb.signatures.map((s) => s.signature().toString('base64')),
  });
  state.innerIndex.set(innerHash, hash);
  return { kind: 'applied', record, duplicate: false };
}

/** Queued transactions whose bid now meets the surge price are submitted again; expired ones leave the queue. */
export function drainQueue(state: LedgerState, passphrase: string): void {
  for (const [key, p] of [...state.pending]) {
    if (state.surgeFee !== undefined && p.rate < state.surgeFee) continue;
    state.pending.delete(key);
    submitEnvelope(state, passphrase, p.envelopeXdr);
  }
}

interface Charge {
  hash: string;
  envelopeXdr: string;
  payer: string;
  fee: bigint;
  maxFee: bigint;
  feeBump?: TxRecord['feeBump'];
  signatures?: string[];
}

/** Takes the fee (from the payer) and the sequence number, runs the operations, and closes a ledger with the record. */
function apply(state: LedgerState, tx: Transaction, c: Charge): TxRecord {
  const ops = tx.operations;
  const source = state.accounts.get(extractBaseAddress(tx.source)) as AccountEntry;
  const payer = state.accounts.get(c.payer) as AccountEntry;
  // Fee and sequence are taken before operations run and stay taken if they fail.
  payer.balance -= c.fee;
  source.sequence = BigInt(tx.sequence);
  const ledgerSeq = state.latest().sequence + 1;
  source.lastModifiedLedger = ledgerSeq;
  payer.lastModifiedLedger = ledgerSeq;

  const work = new Map<string, AccountEntry>();
  const outcomes = ops.map((op) => applyOp(state, work, op, extractBaseAddress(op.source ?? tx.source), ledgerSeq));
  const successful = outcomes.every((o) => o.code === 'op_success');
  if (successful) for (const [id, a] of work) state.accounts.set(id, a);

  const memo = tx.memo;
  const resultXdr = c.feeBump
    ? feeBumpXdr(c.fee, Buffer.from(c.feeBump.innerHash, 'hex'), outcomes, successful)
    : successful
      ? successXdr(c.fee, outcomes)
      : opFailureXdr(c.fee, outcomes);
  const record: TxRecord = {
    hash: c.hash,
    ledger: ledgerSeq,
    createdAt: state.now(),
    sourceAccount: tx.source,
    sequence: BigInt(tx.sequence),
    feeCharged: c.fee,
    maxFee: c.maxFee,
    operationCount: ops.length,
    successful,
    operationCodes: outcomes.map((o) => o.code),
    envelopeXdr: c.envelopeXdr,
    resultXdr,
    memoType: memo.type,
    memo:
      memo.value === null || memo.value === undefined
        ? undefined
        : Buffer.isBuffer(memo.value)
          ? memo.value.toString(memo.type === 'text' ? 'utf8' : 'base64')
          : String(memo.value),
    signatures: c.signatures ?? tx.signatures.map((s) => s.signature().toString('base64')),
    timeBounds: tx.timeBounds ? { minTime: tx.timeBounds.minTime, maxTime: tx.timeBounds.maxTime } : undefined,
    participants: participantsOf(tx, c.payer),
    ...(c.feeBump ? { feeBump: c.feeBump } : {}),
  };
  state.transactions.set(c.hash, record);
  state.close([record]);
  return record;
}

/** Horizon's participants of a transaction, for the operations the simulator knows: source, fee payer, operation sources, created and paid accounts. */
function participantsOf(tx: Transaction, payer: string): string[] {
  const ids = [tx.source, payer];
  for (const op of tx.operations) {
    if (op.source) ids.push(op.source);
    if (op.type === 'createAccount' || op.type === 'payment') ids.push(op.destination);
  }
  return [...new Set(ids.map((id) => extractBaseAddress(id)))];
}

/** What an operation runs against: the ledger, its source account and the copies it changes (`get` copies an account into `work` on first use). */
interface OpScope {
  state: LedgerState;
  work: Map<string, AccountEntry>;
  get: (id: string) => AccountEntry | undefined;
  src: AccountEntry;
  ledgerSeq: number;
}

const result = (kind: OpKind, code: string): OpOutcome => ({ kind, code });

/** Operation effects go to `work` (copies), committed only if every operation succeeds. */
function applyOp(state: LedgerState, work: Map<string, AccountEntry>, op: Operation, sourceId: string, ledgerSeq: number): OpOutcome {
  const get = (id: string): AccountEntry | undefined => {
    const cached = work.get(id);
    if (cached) return cached;
    const live = state.accounts.get(id);
    if (!live) return undefined;
    const copy = cloneAccount(live);
    work.set(id, copy);
    return copy;
  };
  const src = get(sourceId);
  if (!src) return result('other', 'op_no_source_account');
  src.lastModifiedLedger = ledgerSeq;
  const scope: OpScope = { state, work, get, src, ledgerSeq };
  if (op.type === 'createAccount') return createAccount(scope, op);
  if (op.type === 'payment') return payment(scope, op);
  if (op.type === 'changeTrust') return changeTrust(scope, op);
  if (op.type === 'manageData') return manageData(scope, op);
  if (op.type === 'bumpSequence') return bumpSequence(scope, op);
  return result('other', 'op_not_supported');
}

function createAccount({ state, work, get, src, ledgerSeq }: OpScope, op: Operation.CreateAccount): OpOutcome {
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
    data: new Map(),
    lastModifiedLedger: ledgerSeq,
  });
  return result('createAccount', 'op_success');
}

function payment({ state, get, src, ledgerSeq }: OpScope, op: Operation.Payment): OpOutcome {
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

function changeTrust({ state, get, src, ledgerSeq }: OpScope, op: Operation.ChangeTrust): OpOutcome {
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

function manageData({ state, src }: OpScope, op: Operation.ManageData): OpOutcome {
  // stellar-core: a name of printable ASCII (no control characters); a value sets, none removes.
  if (!/^[\x20-\x7e]{1,64}$/.test(op.name)) return result('manageData', 'op_data_invalid_name');
  if (op.value === undefined || op.value === null) {
    if (!src.data.delete(op.name)) return result('manageData', 'op_data_name_not_found');
    src.subentries -= 1;
    return result('manageData', 'op_success');
  }
  if (!src.data.has(op.name)) {
    if (src.balance < state.minBalance(src, 1)) return result('manageData', 'op_low_reserve');
    src.subentries += 1;
  }
  src.data.set(op.name, Buffer.from(op.value));
  return result('manageData', 'op_success');
}

/**
 * stellar-core's BumpSequenceOpFrame: a negative `bumpTo` is op_bad_seq; one above the source's
 * number (already its transaction's own, taken before operations run) raises it; else nothing.
 */
function bumpSequence({ src }: OpScope, op: Operation.BumpSequence): OpOutcome {
  const to = BigInt(op.bumpTo);
  if (to < 0n) return result('bumpSequence', 'op_bad_seq');
  if (to > src.sequence) src.sequence = to;
  return result('bumpSequence', 'op_success');
}
