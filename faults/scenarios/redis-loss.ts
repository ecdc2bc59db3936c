/**
 * Redis SIGKILLed under AOF `appendfsync everysec` while callbacks are being acknowledged, then
 * started again from its files: the withdrawals whose acknowledged callbacks fell into the lost
 * second are recovered from the custody service by reconciliation, and none is sent twice.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../src/dev/free-port.js';
import { redisAnswers, startPersistentRedis } from '../../src/dev/local-redis.js';
import { startStack, waitUntil } from '../stack.js';
import { fundedVaults, newTally, settle, submit, type Accepted, type Tally } from '../withdrawals.js';
import type { ScenarioContext } from './multi-process.js';

export async function redisLoss(ctx: ScenarioContext): Promise<Tally> {
  const tally = newTally('redis-loss');
  const t0 = Date.now();
  const port = await freePort();
  const dir = mkdtempSync(path.join(tmpdir(), 'faults-aof-'));
  const url = `redis://127.0.0.1:${port}`;
  let redis = await startPersistentRedis(port, dir, 'everysec');
  await waitUntil('redis start', () => redisAnswers(url));
  // The quorum takes 4 s, so every withdrawal is written (and fsynced) well before its callback.
  const stack = await startStack({ name: 'redis-loss', redisUrl: url, prefix: `faults-${ctx.run}-loss`, apis: 1, workers: 1, approvalDelayMs: 4000 }).catch(
    (e: unknown) => {
      // A stack that did not start leaves nothing running, its Redis included.
      redis.kill('SIGTERM');
      throw e;
    },
  );
  try {
    const count = ctx.size === 'quick' ? 10 : 30;
    const vaults = await fundedVaults(stack, ctx.size === 'quick' ? 5 : 10);
    const acks: number[] = [];
    const sentAt = Date.now();
    const accepted = (
      await Promise.all(Array.from({ length: count }, (_, i) => submit(stack, tally, vaults[i % vaults.length]!, i, `${ctx.run}-loss-${i}`)))
    ).filter((a): a is Accepted => a !== undefined);
    ctx.log(`redis-loss: ${accepted.length} withdrawals in ${Date.now() - sentAt} ms; callbacks due in ~4 s`);
    // Kill in the middle of the callbacks: the first acknowledgements are less than a second old.
    await waitUntil(
      'first callbacks acknowledged',
      async () => {
        const done = await Promise.all(accepted.map((a) => stack.custody.control.operation(a.operationID)?.status === 'COMPLETED'));
        acks.push(done.filter(Boolean).length);
        return done.filter(Boolean).length >= Math.ceil(accepted.length / 3);
      },
      30_000,
    );
    redis.kill('SIGKILL');
    await new Promise((r) => redis.once('exit', r));
    tally.notes.push(`Redis SIGKILLed with ${acks[acks.length - 1]} of ${accepted.length} sign operations completed`);
    await sleep(2000);
    redis = await startPersistentRedis(port, dir, 'everysec');
    await waitUntil('redis restart', () => redisAnswers(url));
    await settle(stack, tally, accepted, 240_000);
  } finally {
    await stack.stop();
    redis.kill('SIGTERM');
    tally.seconds = Math.round((Date.now() - t0) / 1000);
  }
  return tally;
}
