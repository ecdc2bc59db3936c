import { CustodyNotFoundError, CustodyRequestError } from '../../custody/errors.js';
import type { SignOperation } from '../../custody/types.js';
import { isAppError } from '../../platform/errors.js';
import { failOperation } from '../fail-operation.js';
import { jobJournal } from './job-journal.js';
import type { Operation } from '../model/operation.js';
import type { OpenEntry } from '../store/operation-store.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { addBroadcastJob, broadcastJobId } from './queues.js';
import { settleAndTell, timeoutReason, type SettleOutcome } from '../settle-from-custody.js';
import { continueAfterSetup } from '../setup-first.js';

/**
 * How much one run does. A custody lookup is an HTTP call to a service that also takes our
 * sign requests and rate-limits its clients, and a lookup to a service that is down takes up
 * to a minute (timeouts and retries): so at most 8 lookups at a time and 1,000 per run, and no
 * new check once the run has taken one RECONCILE_INTERVAL_SECONDS. At the default 30 s that
 * is at most about 33 lookups a second, whatever the backlog, and runs do not pile up behind
 * a slow custody service. With 100,000 withdrawals waiting for their quorum a pass over all
 * of them takes 100 runs (50 minutes); the run after a pass starts again from the oldest, so
 * each is checked within ceil(waiting / lookups) + 1 runs while lookups answer in time (and
 * every run checks at least one, so a slow service delays the pass but never stops it).
 * Pages of 200 (one ZRANGE and one MGET each) keep a run's memory flat.
 */
export interface ReconcileLimits {
  /** Open withdrawals read at a time. */
  pageSize: number;
  /** Custody lookups a run makes at most. */
  lookups: number;
  /** Checks (custody lookups among them) in flight at once. */
  concurrency: number;
  /** A run starts no check after this long. */
  runMs: number;
}

export const reconcileLimits = (config: PipelineDeps['config']): ReconcileLimits => ({
  pageSize: 200,
  lookups: 1000,
  concurrency: 8,
  runMs: config.reconcileIntervalSeconds * 1000,
});

/** What reconciliation does with one open withdrawal, decided from its record alone. */
type Check = { kind: 'none' } | { kind: 'restart-broadcast' } | { kind: 'fail'; reason: string } | { kind: 'ask-custody' } | { kind: 'after-setup' };

type Result = 'recovered' | 'failed' | 'unchanged';

export interface ReconcileTally {
  checked: number;
  recovered: number;
  failed: number;
}

function checkFor(op: Operation | undefined, now: number, graceMs: number): Check {
  if (op?.status === 'SIGNED') return { kind: 'restart-broadcast' };
  if (op?.status !== 'EXECUTING') return { kind: 'none' };
  // Waiting for its vault's setup: the confirm job moves it on at once; this look is the net under it.
  if (op.setup?.status === 'waiting') return { kind: 'after-setup' };
  // Crafted after its setup, its sign request may be on its way (its age counts from then).
  if (op.setup?.status === 'done' && !op.operationID && Date.parse(op.updatedAt) > now - graceMs) return { kind: 'none' };
  // An expired transaction can no longer be accepted by the ledger, signed or not.
  if (op.unsigned.expiresAt && op.unsigned.expiresAt < now) return { kind: 'fail', reason: 'expired: the ledger would no longer accept the transaction' };
  if (!op.operationID) return { kind: 'fail', reason: 'the sign request never reached the custody service' };
  return { kind: 'ask-custody' };
}

/** What is left of a run: its custody lookups and its time. */
class RunBudget {
  constructor(
    private lookups: number,
    private readonly until: number,
  ) {}

  /** Whether the run may start this check; takes a lookup for one that asks the custody service. */
  take(check: Check): boolean {
    if (Date.now() >= this.until) return false;
    if (check.kind !== 'ask-custody') return true;
    if (this.lookups <= 0) return false;
    this.lookups--;
    return true;
  }
}

/**
 * A SIGNED withdrawal whose broadcast job ran out of attempts (node down for long) is not
 * failed: its transaction may already sit on a node. Its job is started again here, at the
 * reconciliation cadence, until the ledger takes it or rejects it for good.
 */
async function restartBroadcast(deps: PipelineDeps, op: Operation): Promise<boolean> {
  const job = await deps.queues.broadcast.getJob(broadcastJobId(op.id));
  if (!job) {
    await addBroadcastJob(deps.queues, op);
    return true;
  }
  if (!(await job.isFailed())) return false;
  await job.retry('failed', { resetAttemptsMade: true, resetAttemptsStarted: true });
  await jobJournal(job, deps.logger).log('started again by reconciliation: still SIGNED after its attempts ran out');
  return true;
}

/**
 * Asks the custody service where an EXECUTING withdrawal's sign operation stands and acts on
 * the answer. SIGN_TIMEOUT_SECONDS ends the withdrawal only when the answer is that the quorum
 * has not signed: a signed operation whose callback was lost is completed, whatever its age.
 *
 * A custody service that cannot be asked (down, or an answer we cannot use) leaves the
 * withdrawal EXECUTING with its reservations, past the timeout too: it may be signed there,
 * and handing its nonce or coins to another withdrawal while a signed transaction for them
 * exists risks paying twice (the integrator sees FAILED and pays again; the first transaction
 * can still land). The reservations are held as long as the custody service cannot answer,
 * no longer: the first run that reaches it settles the withdrawal, and meanwhile each run logs
 * it as an error.
 */
async function askCustody(deps: PipelineDeps, op: Operation, now: number): Promise<Result> {
  const timedOut = Date.parse(op.createdAt) < now - deps.config.signTimeoutSeconds * 1000;
  const ids = { withdrawalId: op.id, operationID: op.operationID };
  let outcome: SettleOutcome;
  let remote: SignOperation | undefined;
  try {
    ({ outcome, remote } = await settleAndTell(deps, op));
  } catch (e) {
    const err = isAppError(e) ? e.message : e;
    if (timedOut)
      deps.logger.error(
        { ...ids, err },
        'past SIGN_TIMEOUT_SECONDS, but the custody service could not say whether it is signed: kept EXECUTING with its reservations',
      );
    else deps.logger.warn({ ...ids, err }, 'reconciliation could not finish this operation');
    return 'unchanged';
  }
  if (outcome === 'pending') return timedOut ? failOnTimeout(deps, op, remote) : 'unchanged';
  deps.logger.info({ ...ids, outcome }, 'reconciled a sign operation without callback');
  return resultOf(outcome);
}

const resultOf = (outcome: SettleOutcome): Result => (outcome === 'queued' ? 'recovered' : outcome === 'failed' ? 'failed' : 'unchanged');

/**
 * A withdrawal still unsigned past SIGN_TIMEOUT_SECONDS: its sign operation is canceled at the
 * custody service first, then the withdrawal fails and gives its reservations back. Left
 * pending there, the quorum (or a policy hold whose time slot opens, days later) could still
 * sign it after its nonce or coins went to another withdrawal: a signed transaction of a
 * FAILED withdrawal, which anyone reading the operation could send. A cancel the service
 * refuses because the operation has ended meanwhile (409) settles it as it ended; one the
 * service does not know (404) has nothing left to sign; a cancel that cannot be made keeps
 * the withdrawal EXECUTING with its reservations, as a lookup that cannot be made does.
 */
async function failOnTimeout(deps: PipelineDeps, op: Operation, remote: SignOperation | undefined): Promise<Result> {
  const ids = { withdrawalId: op.id, operationID: op.operationID };
  try {
    await deps.custody.cancelOperation(op.operationID as string);
  } catch (e) {
    if (e instanceof CustodyRequestError && e.problem.upstreamStatus === 409) {
      try {
        return resultOf((await settleAndTell(deps, op)).outcome);
      } catch (again) {
        deps.logger.warn({ ...ids, err: isAppError(again) ? again.message : again }, 'reconciliation could not finish this operation');
        return 'unchanged';
      }
    }
    if (!(e instanceof CustodyNotFoundError)) {
      deps.logger.error(
        { ...ids, err: isAppError(e) ? e.message : e },
        'past SIGN_TIMEOUT_SECONDS, but the custody service did not cancel the sign operation: kept EXECUTING with its reservations',
      );
      return 'unchanged';
    }
  }
  const reason = `${timeoutReason(deps.config.signTimeoutSeconds, remote)}; canceled at the custody service`;
  return (await failOperation(deps, op, reason, ['EXECUTING'])) ? 'failed' : 'unchanged';
}

async function perform(deps: PipelineDeps, op: Operation | undefined, check: Check, now: number): Promise<Result> {
  if (!op || check.kind === 'none') return 'unchanged';
  if (check.kind === 'fail') return (await failOperation(deps, op, check.reason, ['EXECUTING'])) ? 'failed' : 'unchanged';
  if (check.kind === 'ask-custody') return askCustody(deps, op, now);
  if (check.kind === 'after-setup') {
    const after = await continueAfterSetup(deps, op.id).catch((e: unknown) => {
      deps.logger.warn({ withdrawalId: op.id, err: isAppError(e) ? e.message : e }, 'withdrawal waiting for its vault setup: not moved on this time');
      return op;
    });
    return after?.status === 'FAILED' ? 'failed' : after?.setup?.status === 'done' ? 'recovered' : 'unchanged';
  }
  if (await restartBroadcast(deps, op).catch(() => false)) deps.logger.warn({ withdrawalId: op.id }, 'restarted a broadcast that had given up');
  return 'unchanged';
}

/**
 * Checks the page's withdrawals in index order, `concurrency` at a time, while the budget
 * lasts. Returns the last entry started (every started check has finished) and whether the
 * budget stopped the run before the page's end.
 */
async function checkPage(
  deps: PipelineDeps,
  page: OpenEntry[],
  run: { budget: RunBudget; concurrency: number; now: number; tally: ReconcileTally },
): Promise<{ last: OpenEntry | undefined; stopped: boolean }> {
  const ops = new Map((await deps.store.many(page.map((e) => e.id))).map((op) => [op.id, op]));
  let next = 0;
  let stopped = false;
  const worker = async (): Promise<void> => {
    while (!stopped && next < page.length) {
      const op = ops.get((page[next] as OpenEntry).id);
      const check = checkFor(op, run.now, deps.config.reconcileAfterSeconds * 1000);
      if (!run.budget.take(check)) {
        stopped = true;
        return;
      }
      next++;
      run.tally.checked++;
      const result = await perform(deps, op, check, run.now);
      if (result !== 'unchanged') run.tally[result]++;
    }
  };
  await Promise.all(Array.from({ length: run.concurrency }, worker));
  return { last: page[next - 1], stopped };
}

/**
 * Finds withdrawals not yet broadcast RECONCILE_AFTER_SECONDS after their creation:
 * - waiting for signatures: asks the custody service where they stand; a completed sign
 *   operation goes through the same path as a callback, so a lost callback loses nothing;
 *   one the quorum declined or that was canceled, failed or errored ends FAILED, reservations back;
 *   one still unsigned after SIGN_TIMEOUT_SECONDS too, once the custody service has canceled
 *   its sign operation; expired or never sent: FAILED without
 *   asking (a callback arriving later is refused, so nothing is broadcast for a FAILED withdrawal);
 * - signed but with a broadcast that gave up: its broadcast starts again.
 *
 * A run walks the open index oldest first, page by page, from where the previous run stopped
 * (the cursor is kept in Redis), until its budget (`ReconcileLimits`) is spent or the index
 * ends; then the next run starts from the oldest again. So no withdrawal waits behind older
 * ones that stay open for long (up to SIGN_TIMEOUT_SECONDS waiting for the quorum, or SIGNED
 * while a node is down). Two runs at once (two worker processes, a run longer than the
 * interval) may check the same withdrawals twice: every change is a compare-and-set.
 */
export async function processReconcile(deps: PipelineDeps, limits: ReconcileLimits = reconcileLimits(deps.config)): Promise<ReconcileTally> {
  const now = Date.now();
  const olderThan = now - deps.config.reconcileAfterSeconds * 1000;
  const run = {
    budget: new RunBudget(limits.lookups, now + limits.runMs),
    concurrency: limits.concurrency,
    now,
    tally: { checked: 0, recovered: 0, failed: 0 },
  };
  let cursor = await deps.store.reconcileCursor();
  for (;;) {
    const page = await deps.store.openPage(olderThan, limits.pageSize, cursor);
    const { last, stopped } = await checkPage(deps, page, run);
    cursor = last ?? cursor;
    if (stopped) break;
    if (page.length < limits.pageSize) {
      cursor = undefined;
      break;
    }
  }
  await deps.store.saveReconcileCursor(cursor);
  return run.tally;
}
