/**
 * Two API and two worker processes on one Redis; withdrawals and their callbacks spread over
 * both APIs; one API and one worker SIGKILLed at random moments and started again.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newTally, fundedVaults, settle, submit, type Accepted, type Tally } from '../withdrawals.js';
import { startStack } from '../stack.js';

export interface ScenarioContext {
  redisUrl: string;
  /** Distinct per run so runs never see each other's keys. */
  run: string;
  size: 'quick' | 'full';
  log(m: string): void;
}

export async function multiProcess(ctx: ScenarioContext, opts: { name?: string; prefix?: string } = {}): Promise<Tally> {
  const name = opts.name ?? 'multi-process';
  const tally = newTally(name);
  const t0 = Date.now();
  const stack = await startStack({ name, redisUrl: ctx.redisUrl, prefix: opts.prefix ?? `faults-${ctx.run}-mp`, apis: 2, workers: 2 });
  try {
    const count = ctx.size === 'quick' ? 16 : 60;
    const vaults = await fundedVaults(stack, ctx.size === 'quick' ? 4 : 10);
    ctx.log(`${name}: ${count} withdrawals from ${vaults.length} vaults over 2 APIs and 2 workers, with kills`);
    let submitting = true;
    const chaos = (async () => {
      let kills = 0;
      while (submitting) {
        await sleep(1000 + Math.random() * 1500);
        const pool = Math.random() < 0.5 ? 'api' : 'worker';
        const i = Math.floor(Math.random() * 2);
        const victim = pool === 'api' ? stack.apis[i] : stack.workers[i];
        if (!victim?.alive()) continue;
        await victim.kill('SIGKILL');
        kills++;
        await sleep(500);
        await (pool === 'api' ? stack.startApi(i) : stack.startWorker(i));
      }
      tally.notes.push(`${kills} processes SIGKILLed and restarted`);
    })();
    const accepted: Accepted[] = [];
    // In waves of eight, as a payout batch would go out.
    for (let start = 0; start < count; start += 8) {
      const wave = await Promise.all(
        Array.from({ length: Math.min(8, count - start) }, (_, k) => {
          const i = start + k;
          return submit(stack, tally, vaults[i % vaults.length] as { vaultId: string; address: string }, i, `${ctx.run}-${name}-${i}`);
        }),
      );
      accepted.push(...wave.filter((a): a is Accepted => a !== undefined));
      // Waves a second apart, so the kills fall among them on a fast machine too.
      await sleep(1000);
    }
    // Kills go on a little after the last POST, while callbacks and broadcasts are in flight.
    await sleep(3000);
    submitting = false;
    await chaos;
    await settle(stack, tally, accepted);
  } finally {
    await stack.stop();
    tally.seconds = Math.round((Date.now() - t0) / 1000);
  }
  return tally;
}
