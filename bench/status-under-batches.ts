/**
 * `GET /status` latency, asked one after another from outside the API, while `batches`
 * concurrent address-from-publickey requests of `keys` run: what a heavy open route costs
 * every other client of the same API process.
 */
export interface StatusUnderBatches {
  batches: number;
  keysPerBatch: number;
  /** Wall time until the last batch answered. */
  batchesMs: number;
  statusCount: number;
  statusMsP50: number;
  statusMsP99: number;
  statusMsMax: number;
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? NaN;

export async function statusUnderBatches(apiUrl: string, ledgerId: string, keys: string[], batches = 4): Promise<StatusUnderBatches> {
  const body = JSON.stringify({ keys });
  const started = performance.now();
  let running = true;
  const all = Promise.all(
    Array.from({ length: batches }, async () => {
      const res = await fetch(`${apiUrl}/api/v1.0/ledgers/${ledgerId}/address-from-publickey`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      if (res.status !== 200) throw new Error(`address-from-publickey answered ${res.status}: ${(await res.text()).slice(0, 300)}`);
      await res.arrayBuffer();
    }),
  ).finally(() => {
    running = false;
  });
  const times: number[] = [];
  while (running) {
    const asked = performance.now();
    const res = await fetch(`${apiUrl}/api/v1.0/status`);
    await res.arrayBuffer();
    if (running) times.push(performance.now() - asked);
  }
  await all;
  const batchesMs = performance.now() - started;
  times.sort((a, b) => a - b);
  const r1 = (n: number) => Math.round(n * 10) / 10;
  return {
    batches,
    keysPerBatch: keys.length,
    batchesMs: Math.round(batchesMs),
    statusCount: times.length,
    statusMsP50: r1(percentile(times, 50)),
    statusMsP99: r1(percentile(times, 99)),
    statusMsMax: r1(times.at(-1) ?? NaN),
  };
}
