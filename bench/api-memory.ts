/**
 * The `api-memory` phase: mixed requests over every documented route of a fresh API process
 * (valid and invalid, with and without a valid key, signed and unsigned callbacks; the fault
 * suite's route fuzzer with a fixed seed, so every run sends the same requests), then its
 * memory once settled.
 */
import type { RunningInMemoryCustodyEmulator } from '../src/dev/custody-emulator/index.js';
import type { OperationStore } from '../src/withdrawals/store/operation-store.js';
import { fuzzRoutes, type OpenApiLike } from '../test/faults/route-fuzz.js';
import { fakeOperation } from './fixtures.js';
import type { Child } from './procs.js';
import { settledMemory, type MemoryFigure } from './settle.js';

export interface ApiMemory extends MemoryFigure {
  requests: number;
  byStatus: Record<number, number>;
  /** Answers that broke the error contract (a 5xx, an error body without the AppError fields). */
  violations: number;
  rssAtStartMB: number;
  heapUsedAtStartMB: number;
  seconds: number;
  /** Series on the API's /metrics before and after: a label taken from caller input would grow them. */
  metricSeries: { before: number; after: number };
}

/** Sample lines of the Prometheus text exposition. */
async function metricSeries(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text.split('\n').filter((l) => l && !l.startsWith('#')).length;
}

/** Same requests in every run and in both processes: the figures compare. */
const SEED = 11;
const RECIPIENT = '0x00000000000000000000000000000000000000B0';

export async function apiMemory(
  deps: {
    api: { child: Child; url: string };
    custody: RunningInMemoryCustodyEmulator;
    store: OperationStore;
    apiKey: string;
    callbackSecret: string;
    run: string;
    snapshot?: (name: string) => Promise<void>;
  },
  requests: number,
): Promise<ApiMemory> {
  const { api } = deps;
  // A registered vault and a stored withdrawal of it, so a share of the requests gets past the lookups.
  const vault = deps.custody.control.createVault('ECDSA', { ledger: 'ethdev' });
  const reg = await fetch(`${api.url}/api/v1.0/admin/vaults`, {
    method: 'POST',
    headers: { authorization: `Bearer ${deps.apiKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ vaultId: vault.vaultId, ledgerId: 'ethdev', publicKey: vault.publicKey }),
  });
  const registered = (await reg.json()) as { address?: string };
  if (reg.status !== 201 || !registered.address) throw new Error(`vault registration: ${reg.status} ${JSON.stringify(registered)}`);
  const operationID = `apimem-${deps.run}-${vault.vaultId}`;
  await deps.store.create({ ...fakeOperation(operationID, 'ethdev', 'cd'.repeat(32), 'CONFIRMED'), vaultId: vault.vaultId });
  const document = (await (await fetch(`${api.url}/api/v1.0/openapi.json`)).json()) as OpenApiLike;
  const known = {
    ledgerId: ['ethdev', 'btcregtest', 'stellardev', 'eth', 'btc'],
    coinType: ['ethdev', 'btc', 'stellar'],
    vaultId: [vault.vaultId],
    address: [registered.address, RECIPIENT],
    operationID: [operationID],
    id: [operationID],
  };

  const seriesBefore = await metricSeries(api.url);
  const start = await api.child.stats();
  await deps.snapshot?.('before');
  const started = Date.now();
  const result = await fuzzRoutes({ baseUrl: api.url, document, known, keys: [deps.apiKey], callbackSecret: deps.callbackSecret }, requests, SEED);
  const seconds = (Date.now() - started) / 1000;
  const memory = await settledMemory(api.child);
  const seriesAfter = await metricSeries(api.url);
  await deps.snapshot?.('after');
  const mb = (n: number) => Math.round((n / 2 ** 20) * 10) / 10;
  return {
    requests: result.requests,
    byStatus: result.byStatus,
    violations: result.violations.length,
    rssAtStartMB: mb(start.memory.rss),
    heapUsedAtStartMB: mb(start.memory.heapUsed),
    seconds: Math.round(seconds * 10) / 10,
    metricSeries: { before: seriesBefore, after: seriesAfter },
    ...memory,
  };
}
