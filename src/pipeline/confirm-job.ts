import { DelayedError, type Job } from 'bullmq';
import { fromStored, type PipelineDeps } from './pipeline-deps.js';
import { failOperation } from './fail-operation.js';
import { noJournal, type JobJournal } from './job-journal.js';

/**
 * Tracks a broadcast withdrawal until every transaction has the ledger's confirmations
 * (CONFIRMED) or one failed (FAILED with the ledger's reason). While pending, the job puts
 * itself back with a delay instead of failing, so retries stay for real errors.
 */
export async function processConfirm(deps: PipelineDeps, job: Job, token: string | undefined, journal: JobJournal = noJournal): Promise<string> {
  const op = await deps.store.get(job.data.operationId as string);
  if (op.status !== 'BROADCAST') return `nothing to do in ${op.status}`;
  const adaptor = deps.registry.get(op.ledgerId);
  const unsigned = fromStored(op.unsigned);
  const statuses = await Promise.all(op.txids.map((txid) => adaptor.txStatus(txid, unsigned)));
  const failed = statuses.find((s) => s.state === 'failed');
  if (failed) {
    await failOperation(deps, op, `transaction failed on the ledger: ${failed.reason ?? 'no reason given'}`, ['BROADCAST']);
    await journal.log(`FAILED: transaction failed on the ledger: ${failed.reason ?? 'no reason given'}`);
    return 'failed';
  }
  const confirmations = Math.min(...statuses.map((s) => (s.state === 'confirmed' ? s.confirmations : 0)));
  if (confirmations !== op.confirmations || job.attemptsStarted <= 1) await journal.log(`confirmations ${confirmations}/${adaptor.confirmations} (${statuses.map((s) => s.state).join(', ')})`);
  if (confirmations >= adaptor.confirmations) {
    await deps.store.transition(op.id, ['BROADCAST'], 'CONFIRMED', () => ({ confirmations }));
    return 'confirmed';
  }
  if (confirmations !== op.confirmations) await deps.store.update(op.id, (o) => ({ ...o, confirmations }));
  await job.moveToDelayed(Date.now() + deps.config.confirmPollMs, token);
  throw new DelayedError();
}
