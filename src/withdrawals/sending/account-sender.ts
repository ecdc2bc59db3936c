import { randomUUID } from 'node:crypto';
import { isRetryable } from '../../platform/errors.js';
import type { BroadcastResult, LedgerAdaptor, SendOutcome, SignedTx } from '../../ledger/adaptor.js';
import type { JobJournal } from '../jobs/job-journal.js';
import { fromStored, type Operation } from '../model/operation.js';
import type { PipelineDeps } from '../pipeline-deps.js';
import { addConfirmJobs, broadcastJobId } from '../jobs/queues.js';
import { SendOrderBook, SenderBusy } from './send-order.js';
import { noteSent, sentLine, storedSigned } from './send-signed.js';

/** A broadcast job's own withdrawal, SIGNED with its signed bytes stored, at its place in the account's order. */
export interface OwnTransaction {
  op: Operation;
  signed: SignedTx[];
  account: string;
  sequence: bigint;
  journal: JobJournal;
  /** Earlier looks of this job: a job looking again also asks the node for the account's next number. */
  waits: number;
  /** The job, named in the logs of the withdrawals it sends for other jobs. */
  jobId?: string;
}

export type OwnOutcome =
  /** Sent (or found sent): the withdrawal is BROADCAST, or has moved on since. */
  | { kind: 'sent'; op: Operation; results: BroadcastResult[] }
  /** Its predecessor is not out yet; the lock holder that sends the predecessor sends it next. */
  | { kind: 'waiting'; next: bigint }
  /** The node refused it; the job decides (retry, wait, fail). A refusal for good has left the book already. */
  | { kind: 'failed'; error: unknown };

/** Ready entries read per round trip, sends whose bookkeeping is written together (and most handed to the node at once), and bookkeeping writes under way at once. */
const RUN = 64;
const BOOKKEEPING_BATCH = 32;
const MAX_PENDING = 4;

/** A withdrawal whose turn has come: SIGNED, its bytes stored, its number next in the account's order. */
interface Ready {
  op: Operation;
  signed: SignedTx[];
  sequence: bigint;
}

/**
 * Sends the job's transaction in the account's order (see send-order.ts): records it as
 * ready, and if this job gets the account's send lock, sends every consecutive ready
 * transaction from the account's next number on. Throws SenderBusy when another job holds
 * the lock: that job sends this one in its turn.
 */
export async function sendInOrder(deps: PipelineDeps, book: SendOrderBook, adaptor: LedgerAdaptor, own: OwnTransaction): Promise<OwnOutcome> {
  const token = randomUUID();
  const { locked, lastSent } = await book.readyAndTryLock(own.op.ledgerId, own.account, own.sequence, own.op.id, token);
  if (!locked) throw new SenderBusy(own.account, own.sequence);
  return new SendSession(deps, book, adaptor, own, token).run(lastSent);
}

/** One holding of an account's send lock. */
class SendSession {
  private lost = false;
  private released = false;
  private outcome: OwnOutcome | undefined;
  private readonly pending = new Set<Promise<void>>();
  /** Sent, bookkeeping not yet written (written BOOKKEEPING_BATCH at a time, and before the lock goes). */
  private sent: { op: Operation; sequence: bigint; results: BroadcastResult[] }[] = [];
  private readonly ledgerId: string;

  constructor(
    private readonly deps: PipelineDeps,
    private readonly book: SendOrderBook,
    private readonly adaptor: LedgerAdaptor,
    private readonly own: OwnTransaction,
    private readonly token: string,
  ) {
    this.ledgerId = own.op.ledgerId;
  }

  async run(lastSent: bigint | undefined): Promise<OwnOutcome> {
    const { ledgerId, own } = this;
    // The lock lives as long as this process does: a holder that dies loses it within LOCK_MS.
    const heartbeat = setInterval(() => {
      this.book.extend(ledgerId, own.account, this.token).then(
        (ours) => {
          if (!ours) this.lost = true;
        },
        () => undefined,
      );
    }, SendOrderBook.LOCK_MS / 3);
    heartbeat.unref();
    let next = own.sequence;
    try {
      next = await this.startingNumber(lastSent);
      if (own.sequence < next) {
        // Below the account's next number: sent by a holder that died before its bookkeeping
        // was done, or the number was taken by another transaction. The node tells which.
        const fresh = await this.deps.store.get(own.op.id);
        if (fresh.status !== 'SIGNED') {
          this.outcome = { kind: 'sent', op: fresh, results: [] };
          this.track(this.book.forget(ledgerId, own.account, own.sequence, own.op.id));
        } else {
          await this.sendTogether([{ op: fresh, signed: own.signed, sequence: own.sequence }]);
        }
      }
      // Its own transaction, ready in the book, goes out with those after it when its turn has come.
      next = await this.sendReady(next);
    } finally {
      clearInterval(heartbeat);
      await this.finish();
    }
    return this.outcome ?? { kind: 'waiting', next };
  }

  /** The account's next number: after the last this service sent, or the node's when that is unknown or looked at again. */
  private async startingNumber(lastSent: bigint | undefined): Promise<bigint> {
    const { adaptor, own } = this;
    let next = lastSent === undefined ? undefined : lastSent + 1n;
    if (adaptor.nextSequence && (next === undefined || (own.waits > 0 && own.sequence > next))) {
      try {
        const node = await adaptor.nextSequence(own.account);
        if (next === undefined || node > next) next = node;
      } catch (e) {
        this.deps.logger.warn(
          { withdrawalId: own.op.id, err: (e as Error).message },
          'could not read the account order from the node; going by what this service sent',
        );
      }
    }
    return next ?? own.sequence;
  }

  /** Sends the consecutive ready transactions from `next` on; returns the first number not sent. */
  private async sendReady(next: bigint): Promise<bigint> {
    const { book, ledgerId, own } = this;
    for (;;) {
      if (this.lost) return next;
      const run = await book.readyRun(ledgerId, own.account, next, RUN);
      if (run.length === 0) {
        // Bookkeeping first: whoever takes the lock next must find every sent withdrawal BROADCAST.
        await this.settle();
        if (this.lost) return next;
        const r = await book.releaseOrContinue(ledgerId, own.account, this.token, next);
        if (r === 'continue') continue;
        this.released = true;
        if (r === 'lost') this.lost = true;
        return next;
      }
      const ops = await this.load(run.map((e) => e.withdrawalId));
      // Consecutive withdrawals to send go to the node together; whatever else comes waits for them.
      let group: Ready[] = [];
      const sendGroup = async (): Promise<boolean> => {
        const unsent = await this.sendAll(group);
        if (unsent !== undefined) next = unsent;
        else if (group.length > 0) next = (group[group.length - 1] as Ready).sequence + 1n;
        group = [];
        return unsent === undefined;
      };
      for (const entry of run) {
        const op = ops.get(entry.withdrawalId);
        const verdict = this.judge(op, entry.sequence);
        if (verdict === 'send') {
          group.push({ op: op as Operation, signed: storedSigned(op as Operation) as SignedTx[], sequence: entry.sequence });
          continue;
        }
        if (!(await sendGroup())) return next;
        if (verdict === 'stop') {
          if (!op || op.status === 'FAILED') this.track(book.forget(ledgerId, own.account, entry.sequence, entry.withdrawalId));
          return next;
        }
        this.track(this.recordSent(entry.sequence, entry.withdrawalId));
        next = entry.sequence + 1n;
      }
      if (!(await sendGroup())) return next;
    }
  }

  /** Sends a run of ready withdrawals in order, BOOKKEEPING_BATCH at a time; returns the first number not sent. */
  private async sendAll(group: Ready[]): Promise<bigint | undefined> {
    for (let at = 0; at < group.length; at += BOOKKEEPING_BATCH) {
      const unsent = await this.sendTogether(group.slice(at, at + BOOKKEEPING_BATCH));
      if (unsent !== undefined) return unsent;
    }
    return undefined;
  }

  /** Whether a ready entry's withdrawal goes out now, went out already, or stops the run. */
  private judge(op: Operation | undefined, sequence: bigint): 'send' | 'out' | 'stop' {
    if (!op || op.ledgerId !== this.ledgerId) return 'stop';
    if (op.status === 'BROADCAST' || op.status === 'CONFIRMED') return 'out';
    if (op.status !== 'SIGNED' || !storedSigned(op)) return 'stop';
    const order = this.adaptor.sendOrder?.(fromStored(op.unsigned));
    if (!order || order.sequence !== sequence || order.account.toLowerCase() !== this.own.account.toLowerCase()) return 'stop';
    return 'send';
  }

  private async load(ids: string[]): Promise<Map<string, Operation>> {
    return new Map((await this.deps.store.many(ids)).map((o) => [o.id, o]));
  }

  /**
   * Sends withdrawals in order (see answers); returns the first number not sent. Each answer
   * counts on its own: one the node took after one it refused is out (and BROADCAST); the
   * refused one's job sends it again, below the account's next number.
   */
  private async sendTogether(group: Ready[]): Promise<bigint | undefined> {
    const first = group[0] as Ready;
    if (this.lost) return first.sequence;
    while (this.pending.size >= MAX_PENDING) await Promise.race(this.pending);
    let outcomes: SendOutcome[];
    try {
      outcomes = await this.answers(group.flatMap((r) => r.signed));
    } catch (e) {
      this.refused(first, e);
      return first.sequence;
    }
    let unsent: bigint | undefined;
    let at = 0;
    for (const r of group) {
      const answers = outcomes.slice(at, (at += r.signed.length));
      const results = answers.flatMap((o) => (o.ok ? [o.result] : []));
      for (const result of results) noteSent(this.deps, r.op, result);
      const refusal = answers.find((o) => !o.ok);
      if (results.length === r.signed.length) {
        this.sent.push({ op: r.op, sequence: r.sequence, results });
        continue;
      }
      if (refusal) this.refused(r, refusal.error);
      // Not answered (a later round trip failed): its job sends it; the first one is woken for that.
      else if (unsent === undefined && r.op.id !== this.own.op.id) this.track(this.wake(r.op.id));
      unsent ??= r.sequence;
    }
    if (this.sent.length >= BOOKKEEPING_BATCH) this.writeBookkeeping();
    return unsent;
  }

  /**
   * The node's answers to `txs`, in order: in one `broadcastMany` where the adaptor has one,
   * else one at a time up to the first refusal (the answers then cover a prefix).
   */
  private async answers(txs: SignedTx[]): Promise<SendOutcome[]> {
    if (txs.length > 1 && this.adaptor.broadcastMany) return this.adaptor.broadcastMany(txs);
    const outcomes: SendOutcome[] = [];
    for (const tx of txs) {
      try {
        outcomes.push({ ok: true, result: await this.adaptor.broadcast(tx) });
      } catch (error) {
        outcomes.push({ ok: false, error });
        break;
      }
    }
    return outcomes;
  }

  /** The node refused `op`'s transaction: its own job decides what that means (retry, wait, fail). */
  private refused({ op, sequence }: Ready, e: unknown): void {
    if (op.id === this.own.op.id) {
      this.outcome = { kind: 'failed', error: e };
      // Out of the book before the lock goes (finish settles first): a job taking the lock next
      // must not send the bytes of a withdrawal this job is about to end FAILED.
      if (!isRetryable(e)) this.track(this.book.forget(this.ledgerId, this.own.account, sequence, op.id));
      return;
    }
    this.deps.logger.info(
      { withdrawalId: op.id, err: (e as Error).message, by: this.own.op.id },
      'the node refused the next transaction of the account; its own job takes over',
    );
    this.track(this.wake(op.id));
  }

  /** Starts writing what the jobs of the sends so far would: the book, BROADCAST, the confirmation jobs, their logs. */
  private writeBookkeeping(): void {
    if (this.sent.length === 0) return;
    const batch = this.sent;
    this.sent = [];
    this.track(this.afterSends(batch));
  }

  /** The bookkeeping of a batch of sends, a few round trips for all of them. */
  private async afterSends(batch: { op: Operation; sequence: bigint; results: BroadcastResult[] }[]): Promise<void> {
    const own = batch.find((b) => b.op.id === this.own.op.id);
    try {
      const recorded = this.book
        .recordSentMany(
          this.ledgerId,
          this.own.account,
          batch.map((b) => ({ sequence: b.sequence, withdrawalId: b.op.id })),
          this.token,
        )
        .then((ours) => {
          if (!ours) this.lost = true;
        });
      // Awaited last, but handled from now on: when a write below fails first (with Redis gone
      // they all fail), this one's failure would otherwise go unhandled and end the process.
      recorded.catch(() => undefined);
      const moved = await this.deps.store.transitionMany(
        batch.map((b) => b.op),
        ['SIGNED'],
        'BROADCAST',
      );
      await addConfirmJobs(
        this.deps.queues,
        moved.filter((o) => o.status === 'BROADCAST'),
        this.deps.config.confirmPollMs,
      );
      const by = this.own.jobId ? `job ${this.own.jobId}` : 'the account sender';
      const at = new Date().toISOString();
      await Promise.all(
        batch.map(async (b, i) => {
          if (b === own) {
            this.outcome = { kind: 'sent', op: moved[i] as Operation, results: b.results };
            await this.own.journal.log(sentLine(b.results));
          } else {
            await this.deps.queues.broadcast.addJobLog(broadcastJobId(b.op.id), `${at} ${sentLine(b.results, by)}`).catch(() => undefined);
          }
        }),
      );
      await recorded;
    } catch (e) {
      // Its own job finds it SIGNED, below the account's next number, and sends it again: the node knows it.
      if (own) this.outcome = { kind: 'failed', error: e };
      throw e;
    }
  }

  private async recordSent(sequence: bigint, withdrawalId: string): Promise<void> {
    if (!(await this.book.recordSent(this.ledgerId, this.own.account, sequence, withdrawalId, this.token))) this.lost = true;
  }

  private async wake(withdrawalId: string): Promise<void> {
    const job = await this.deps.queues.broadcast.getJob(broadcastJobId(withdrawalId));
    if (job && (await job.isDelayed())) await job.promote();
  }

  private track(p: Promise<unknown>): void {
    const tracked: Promise<void> = p.then(
      () => undefined,
      (e: unknown) =>
        this.deps.logger.warn(
          { err: (e as Error).message, ledgerId: this.ledgerId, account: this.own.account },
          'bookkeeping after a send failed; the job that owns it finishes it',
        ),
    );
    this.pending.add(tracked);
    void tracked.finally(() => this.pending.delete(tracked));
  }

  private async settle(): Promise<void> {
    this.writeBookkeeping();
    while (this.pending.size) await Promise.all([...this.pending]);
  }

  /** Waits for the bookkeeping of every send, then gives the lock back (unless it went on to another holder). */
  private async finish(): Promise<void> {
    await this.settle();
    if (this.released) return;
    this.released = true;
    await this.book.release(this.ledgerId, this.own.account, this.token).catch((e: unknown) => {
      this.deps.logger.warn({ err: (e as Error).message }, 'could not release the send lock; it expires on its own');
    });
  }
}
