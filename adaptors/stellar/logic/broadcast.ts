import { extractBaseAddress, FeeBumpTransaction, TransactionBuilder, xdr } from '@stellar/stellar-base';
import { NodeRejectionError, PermanentLedgerError } from '../../../src/platform/errors.js';
import type { BroadcastResult, SendOutcome, SignedTx } from '../../../src/ledger/adaptor.js';
import type { StellarContext } from '../context.js';
import { codesFromResultXdr, horizonRejection, nodeHost } from '../network/errors.js';
import { HorizonMalformedError, HorizonSubmitError, SubmissionTimeout } from '../network/horizon.js';
import { sequenceScope } from './sequence.js';

/**
 * Submits through Horizon (synchronous: it answers once the transaction is in a ledger).
 * `tx_bad_seq` for a transaction that already applied is success; for one whose sequence is
 * still ahead of the account's (an earlier withdrawal not in yet) it is retryable; any other
 * result code is a refusal of this signed transaction by this Horizon, which proves it can
 * never land only where the table says so (errors.ts: a malformed envelope); the refusal names
 * the Horizon host that answered.
 */
export async function broadcast(ctx: StellarContext, signed: SignedTx): Promise<BroadcastResult> {
  return submit(ctx, read(ctx, signed), true);
}

/**
 * Several transactions, one at a time in the order given (Horizon has no batch), up to the
 * first refusal: the answers cover a prefix. Only the first is looked up before it is sent. A
 * transaction whose predecessor in the list (the same account, one sequence number lower) was
 * just taken by the node as new cannot have been applied before: its sequence number was not
 * reached until then, and only the account's send-lock holder sends its transactions. So it
 * goes straight to Horizon, one round trip instead of two on the account's serial path. After
 * one found already applied (a resend after a crash), the next is looked up again. The numbers
 * the node took are settled together once the run ends, as Ethereum's batch does: a Redis
 * round trip per send sat on the account's serial path. Until then they stay reserved by their
 * withdrawals, so none is handed out again meanwhile; when that one write fails, the run counts
 * as unanswered and its jobs send again (Horizon then finds each applied).
 */
export async function broadcastMany(ctx: StellarContext, signed: SignedTx[]): Promise<SendOutcome[]> {
  const outcomes: SendOutcome[] = [];
  const taken = new Map<string, bigint[]>();
  let previous: { source: string; sequence: bigint; fresh: boolean } | undefined;
  for (const s of signed) {
    try {
      const tx = read(ctx, s);
      const lookFirst = !previous?.fresh || previous.source !== tx.source || tx.sequence !== previous.sequence + 1n;
      const result = await submit(ctx, tx, lookFirst, (scope, sequence) => taken.set(scope, [...(taken.get(scope) ?? []), sequence]));
      outcomes.push({ ok: true, result });
      previous = { source: tx.source, sequence: tx.sequence, fresh: !result.alreadyKnown };
    } catch (error) {
      outcomes.push({ ok: false, error });
      break;
    }
  }
  await Promise.all([...taken].map(([scope, sequences]) => ctx.deps.reservations.settleSequences(scope, sequences)));
  return outcomes;
}

/** A signed transaction as broadcast needs it: its envelope, the account and number it spends. */
interface Outgoing {
  envelope: xdr.TransactionEnvelope;
  txid: string;
  source: string;
  sequence: bigint;
}

function read(ctx: StellarContext, signed: SignedTx): Outgoing {
  const envelope = xdr.TransactionEnvelope.fromXDR(signed.serialized, 'hex');
  // A fee-bump (speed-up) spends the sequence number of the transaction it wraps.
  const outer = TransactionBuilder.fromXDR(envelope, ctx.passphrase);
  const tx = outer instanceof FeeBumpTransaction ? outer.innerTransaction : outer;
  const txid = outer.hash().toString('hex');
  if (txid !== signed.txid) throw new PermanentLedgerError(`signed transaction hashes to ${txid}, not ${signed.txid}`);
  return { envelope, txid, source: extractBaseAddress(tx.source), sequence: BigInt(tx.sequence) };
}

/**
 * Sends one transaction; `lookFirst`: ask Horizon first whether it was applied already.
 * `spent` is told each sequence number the ledger used, to settle later; without it, each is
 * settled here before the answer.
 */
async function submit(
  ctx: StellarContext,
  { envelope, txid, source, sequence }: Outgoing,
  lookFirst: boolean,
  spent?: (scope: string, sequence: bigint) => void,
): Promise<BroadcastResult> {
  const scope = sequenceScope(ctx.ledgerId, source);
  const settle = async () => (spent ? spent(scope, sequence) : ctx.deps.reservations.settleSequence(scope, sequence));
  // Horizon answers a resubmitted, already-applied transaction with its original 200, so
  // "already known" can only be told by looking first.
  if (lookFirst) {
    const before = await ctx.horizon.transaction(txid);
    if (before?.successful) {
      await settle();
      return { txid, alreadyKnown: true };
    }
  }
  try {
    await ctx.horizon.submit(envelope.toXDR('base64'));
    await settle();
    return { txid, alreadyKnown: false };
  } catch (e) {
    // Queued by stellar-core under a surge price: out on the network, not yet in a ledger, so
    // its sequence number stays reserved; the confirmation watch takes it from here.
    if (e instanceof SubmissionTimeout) return { txid, alreadyKnown: false };
    const node = nodeHost(ctx.options.horizonUrl);
    // Not decodable: invalid by its own bytes, on any Horizon.
    if (e instanceof HorizonMalformedError) throw new NodeRejectionError('invalid', e.message, false, node ? { node } : {}, { invalidForever: true });
    if (!(e instanceof HorizonSubmitError)) throw e;
    const codes = e.resultCodes;
    if (codes.transaction === 'tx_bad_seq') {
      const known = await ctx.horizon.transaction(txid);
      if (known?.successful) {
        await settle();
        return { txid, alreadyKnown: true };
      }
      if (known) throw horizonRejection(codesFromResultXdr(known.result_xdr), undefined, node);
      // Not yet consumed: an earlier withdrawal is still on its way, or applied between our
      // submit and this read (the account then already sits one below us). Either way a
      // retry can succeed; only a number the account has passed is lost for good.
      const account = await ctx.horizon.account(source);
      if (account && sequence > BigInt(account.sequence)) {
        throw horizonRejection(
          codes,
          {
            kind: 'nonce_too_high',
            retryable: true,
            details: `sequence ${sequence} is ahead of ${source}'s next (${BigInt(account.sequence) + 1n}): an earlier withdrawal has not reached the ledger yet`,
          },
          node,
        );
      }
    }
    // tx_failed applied the transaction as failed: its sequence number is spent.
    if (codes.transaction === 'tx_failed') await settle();
    throw horizonRejection(codes, undefined, node);
  }
}
