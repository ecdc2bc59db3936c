import type { VerifiedSignature } from '../../ledger/adaptor.js';
import { attemptsOf, fromStored, unsignedOf, withAttempt, withRefusal, withSigningFailed } from '../model/operation.js';
import { isRetryable, provesNeverLands } from '../../platform/errors.js';
import { refusalOf } from '../hold-refused.js';
import { scheduleConfirm } from './broadcast-job.js';
import type { PipelineDeps } from '../pipeline-deps.js';

/**
 * Sends the signed replacements (speed-up, cancel) of one withdrawal: for each attempt whose
 * signatures are complete, assembles it from its own stored craft (never from the callback),
 * records its txids and signed bytes before sending, and sends it. A replacement whose own bytes
 * the node calls invalid for good ends as a failed attempt. Any other refusal (fee too low to
 * replace on that node, no funds yet) proves nothing: signed, it may still land, so it stays a
 * live attempt with the refusal recorded and is watched with the others; the withdrawal goes on.
 */
export async function processReplacement(deps: PipelineDeps, withdrawalId: string): Promise<string> {
  let op = await deps.store.get(withdrawalId);
  const waiting = attemptsOf(op).flatMap((a, i) => (i > 0 && a.status === 'signing' ? [i] : []));
  if (op.status !== 'BROADCAST') {
    const reason = `the withdrawal was ${op.status} before the replacement was signed`;
    if (waiting.length) await deps.store.update(op.id, (o) => ({ ...o, attempts: withSigningFailed(o, waiting, reason) }));
    return `nothing to send in ${op.status}`;
  }
  const adaptor = deps.registry.get(op.ledgerId);
  const sent: string[] = [];
  for (const i of waiting) {
    const unsigned = fromStored(unsignedOf(op, i));
    const sigs = await deps.store.signatures(op.id, i);
    if (sigs.size < unsigned.payloads.length) continue;
    const verified: VerifiedSignature[] = unsigned.payloads.map((_, p) => {
      const s = sigs.get(p) as { signature: string; recoveryId: 0 | 1 };
      return { payloadIndex: p, signature: Uint8Array.from(Buffer.from(s.signature, 'hex')), recoveryId: s.recoveryId };
    });
    const fail = (reason: string) =>
      deps.store.update(op.id, (o) => ({ ...o, attempts: withAttempt(o, i, (a) => ({ ...a, status: 'failed', failureReason: reason })) }));
    let signed;
    try {
      signed = adaptor.combine(unsigned, verified);
    } catch (e) {
      await fail(`could not assemble the signed replacement: ${(e as Error).message}`);
      continue;
    }
    const kind = attemptsOf(op)[i]?.kind ?? 'speed-up';
    op = await deps.store.update(op.id, (o) => ({
      ...o,
      attempts: withAttempt(o, i, (a) =>
        a.status === 'signing' ? { ...a, status: 'broadcast', txids: signed.map((t) => t.txid), signed: signed.map((t) => t.serialized) } : a,
      ),
    }));
    try {
      for (const tx of signed) await adaptor.broadcast(tx);
    } catch (e) {
      deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: isRetryable(e) ? 'retryable_error' : 'rejected' });
      if (isRetryable(e)) throw e;
      deps.logger.warn({ withdrawalId: op.id, attempt: i, err: (e as Error).message }, 'replacement rejected');
      if (provesNeverLands(e)) {
        await fail(`rejected by the ledger: ${(e as Error).message}`);
        continue;
      }
      const refusal = refusalOf(e);
      op = await deps.store.update(op.id, (o) => ({
        ...o,
        attempts: withAttempt(o, i, (a) => ({ ...a, sentAt: a.sentAt ?? refusal.at, lastSentAt: refusal.at, refusals: withRefusal(a.refusals, refusal) })),
        history: [
          ...o.history,
          { status: o.status, at: refusal.at, detail: `${kind} refused by the node: ${refusal.answer}; kept and watched, since it may still land` },
        ],
      }));
      continue;
    }
    const at = new Date().toISOString();
    const txids = signed.map((t) => t.txid).join(', ');
    // The stuck mark is judged again on the new transaction.
    op = await deps.store.update(op.id, (o) => ({
      ...o,
      stuck: undefined,
      attempts: withAttempt(o, i, (a) => ({ ...a, sentAt: a.sentAt ?? at, lastSentAt: at })),
      history: [...o.history, { status: o.status, at, detail: `${kind} sent: ${txids}` }],
    }));
    deps.metrics?.broadcasts.inc({ ledger: op.ledgerId, outcome: 'sent' });
    deps.metrics?.afterBroadcast.inc({ ledger: op.ledgerId, event: kind });
    deps.logger.info({ withdrawalId: op.id, attempt: i, kind, txids }, 'replacement sent');
    sent.push(txids);
  }
  await scheduleConfirm(deps, await deps.store.get(op.id));
  return sent.length ? `sent ${sent.join('; ')}` : 'nothing complete to send';
}
