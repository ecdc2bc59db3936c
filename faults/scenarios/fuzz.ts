/** Hostile input at volume against a real API process: no 5xx, no crash, memory settles. */
import { fuzzRoutes, type OpenApiLike } from '../../test/faults/route-fuzz.js';
import { API_KEY, SECRET, startStack } from '../stack.js';
import { fundedVaults, newTally, RECIPIENT, submit, type Tally } from '../withdrawals.js';
import type { ScenarioContext } from './multi-process.js';

async function rssMB(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const m = /^process_resident_memory_bytes (\d+(?:\.\d+)?(?:e\+\d+)?)/m.exec(text);
  return m ? Math.round(Number(m[1]) / 2 ** 20) : NaN;
}

export async function fuzzScenario(ctx: ScenarioContext): Promise<Tally> {
  const tally = newTally('fuzz');
  const t0 = Date.now();
  const stack = await startStack({ name: 'fuzz', redisUrl: ctx.redisUrl, prefix: `faults-${ctx.run}-fuzz`, apis: 1, workers: 1 });
  try {
    const [vault] = await fundedVaults(stack, 1);
    const fixture = await submit(stack, tally, vault as { vaultId: string; address: string }, 0, `${ctx.run}-fuzz-fixture`);
    const api = stack.apis[0] as { url: string; alive(): boolean };
    const document = (await (await fetch(`${api.url}/api/v1.0/openapi.json`)).json()) as OpenApiLike;
    const known = {
      ledgerId: ['ethdev', 'eth', 'btc'],
      vaultId: [vault!.vaultId],
      address: [vault!.address, RECIPIENT],
      operationID: [fixture?.operationID ?? 'x'],
      id: [fixture?.operationID ?? 'x'],
    };
    const runs = ctx.size === 'quick' ? 2_000 : 24_000;
    const before = await rssMB(api.url);
    const result = await fuzzRoutes({ baseUrl: api.url, document, known, keys: [API_KEY], callbackSecret: SECRET }, runs);
    // Let the collector run before the figure is read: "settles" is after the load, not during it.
    await new Promise((r) => setTimeout(r, 5000));
    const after = await rssMB(api.url);
    tally.answers5xxOther = result.violations.filter((v) => /→ 5\d\d/.test(v)).length;
    tally.notes.push(`${result.requests} requests: ${JSON.stringify(result.byStatus)}`);
    tally.notes.push(`API RSS ${before} MB before, ${after} MB after; process alive: ${api.alive()}`);
    for (const v of result.violations.slice(0, 5)) tally.notes.push(`violation: ${v}`);
    if (!api.alive()) tally.notes.push('did not run to the end: the API process died');
  } finally {
    await stack.stop();
    tally.seconds = Math.round((Date.now() - t0) / 1000);
  }
  return tally;
}
