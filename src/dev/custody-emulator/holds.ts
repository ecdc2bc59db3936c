import type { EmulatorContext, HoldWatch } from './context.js';
import type { Operation, Vault } from './model.js';
import { heldRecord, holdText, policyOf, refusalText, ruleOutcome } from './policy.js';
import { statusText } from './views.js';

/**
 * The longest the watch sleeps: an opening computed days ahead is checked again at least
 * this often, so a clock that jumps or a time-zone rule that changes is noticed, not slept through.
 */
const MAX_SLEEP_MS = 60_000;

/** What the policy makes of a held operation now: released, declined, still held (changed or not: undefined). */
function reconsider(op: Operation, vault: Vault, now: number): Operation | undefined {
  const outcome = ruleOutcome(policyOf(vault), op.sign!, now);
  if (outcome && 'refused' in outcome) return { ...op, held: undefined, status: 'DECLINED', statusText: refusalText(outcome.refused) };
  if (!outcome) return { ...op, held: undefined, statusText: statusText('PENDING') };
  const held = heldRecord(outcome.held);
  const text = holdText(outcome.held);
  return text === op.statusText && held.until === op.held?.until ? undefined : { ...op, held, statusText: text };
}

/**
 * Watches the sign operations held outside the vault policy's weekly time slots. A check looks
 * at each against its vault's current policy and the emulator's clock: a slot is open, so it
 * is released to the approvers (automatic approvers act as for a new request); a rule refuses
 * it now (the policy changed meanwhile), so it ends DECLINED with that rule named; or it
 * stays held. Then one timer is set for the earliest opening. The state is the operations in
 * the store, so a restarted emulator picks them up with its first check.
 */
export function createHoldWatch(ctx: EmulatorContext): HoldWatch {
  let timer: NodeJS.Timeout | undefined;
  const disarm = () => {
    if (timer) clearTimeout(timer);
    timer = undefined;
  };
  ctx.background.signal.addEventListener('abort', disarm, { once: true });

  const arm = async (): Promise<void> => {
    disarm();
    if (ctx.background.signal.aborted) return;
    const held = (await ctx.store.list<Operation>('operation')).filter((o) => o.status === 'PENDING' && o.held);
    if (!held.length) return;
    const openings = held.map((o) => (o.held?.until ? Date.parse(o.held.until) : Infinity));
    const sleep = Math.max(0, Math.min(MAX_SLEEP_MS, Math.min(...openings) - ctx.now()));
    timer = setTimeout(() => ctx.background.track(watch.check()), sleep);
    // The watch never keeps a process alive on its own; the HTTP server does.
    timer.unref();
  };

  const watch: HoldWatch = {
    async check() {
      const changed = await ctx.store.exclusive(async () => {
        const out: Operation[] = [];
        for (const op of await ctx.store.list<Operation>('operation')) {
          if (op.status !== 'PENDING' || !op.held || !op.sign) continue;
          const vault = await ctx.store.get<Vault>('vault', op.vaultID);
          const next = vault && reconsider(op, vault, ctx.now());
          if (!next) continue;
          await ctx.store.put('operation', next.operationID, next);
          out.push(next);
        }
        return out;
      });
      for (const op of changed) {
        ctx.logger.info({ operationID: op.operationID, status: op.status, statusText: op.statusText }, 'held sign operation reconsidered');
        if (op.status === 'DECLINED') ctx.hooks.operationEnded(op);
        else if (!op.held) ctx.hooks.operationCreated(op);
      }
      await arm();
      return changed.filter((o) => !o.held).length;
    },
  };
  return watch;
}
