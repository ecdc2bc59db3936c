/**
 * The bench's `create` phase: `POST /vaults/{id}/withdrawals` alone, for one Ethereum vault,
 * as a payout (each withdrawal to a recipient of its own, so no gas estimate is shared),
 * against an API process of its own (started with the bench preload, which counts the
 * JSON-RPC requests it sends to the node). The custody emulator holds the quorum of the
 * bench vault (`holdApprovals`), so the sign requests are real but no callback, worker or
 * broadcast runs during the measurement: the chain stays at one block, as it would between
 * two blocks of a real chain.
 */
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import type { RunningInMemoryCustodyEmulator } from '../src/dev/custody-emulator/index.js';
import { DevChainFunder } from '../adaptors/ethereum/local-node/dev-chain.js';
import type { OperationStore } from '../src/withdrawals/store/operation-store.js';
import { operationKeys, servicePrefix } from '../src/platform/redis-keys.js';
import { keepAliveFetch } from '../src/platform/http-client.js';
import type { Child } from './procs.js';
import { pct } from './stats.js';

export interface CreateFigures {
  withdrawals: number;
  inFlight: number;
  created: number;
  refused: number;
  seconds: number;
  perSecond: number;
  msP50: number;
  msP99: number;
  /** CPU time of the API process per withdrawal (user + system): what bounds the rate when the cores are busy. */
  apiCpuMsPerWithdrawal: number;
  /** HTTP requests to the node per withdrawal (a JSON-RPC batch is one). */
  roundTripsPerWithdrawal: number;
  /** JSON-RPC calls per withdrawal, and by method over the measured withdrawals. */
  callsPerWithdrawal: number;
  calls: Record<string, number>;
  /** The stored nonces of every withdrawal made in the phase (warm-up included) are 0..count-1. */
  nonces: { count: number; unique: number; contiguous: boolean };
}

export interface CreatePhaseInput {
  api: { url: string; child: Child };
  apiKey: string;
  custody: RunningInMemoryCustodyEmulator;
  anvilUrl: string;
  store: OperationStore;
  redis: Redis;
  prefix: string;
  withdrawals: number;
  warmup: number;
  inFlight: number;
  log: (m: string) => void;
}

export async function createPhase(o: CreatePhaseInput): Promise<CreateFigures> {
  // The requests leave the bench process, which also answers the API's sign requests (the custody
  // emulator) on the same thread: over keep-alive connections, the client the service's custody
  // client uses, not `fetch`, whose own work per request delayed those answers (five alternated
  // `--only=create` pairs: POST p99 128–155 ms against 148–285 ms, 709–850 against 670–748 per s).
  const client = keepAliveFetch(o.inFlight);
  const call = async (method: string, p: string, body?: unknown) => {
    const res = await client(o.api.url + p, {
      method,
      headers: { authorization: `Bearer ${o.apiKey}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };
  const vault = o.custody.control.createVault('ECDSA', { ledger: 'ethdev' });
  o.custody.control.setFaults({ holdApprovals: true }, vault.vaultId);
  const reg = await call('POST', '/api/v1.0/admin/vaults', { vaultId: vault.vaultId, ledgerId: 'ethdev', publicKey: vault.publicKey });
  if (reg.status !== 201) throw new Error(`vault registration: ${JSON.stringify(reg.body)}`);
  const funder = new DevChainFunder(o.anvilUrl);
  await funder.sendEth(reg.body.address as string, 100n * 10n ** 18n);
  funder.destroy();

  const ids: string[] = [];
  const refusals: string[] = [];
  const run = async (count: number, tag: string): Promise<number[]> => {
    const ms: number[] = [];
    let next = 0;
    await Promise.all(
      Array.from({ length: o.inFlight }, async () => {
        while (next < count) {
          const i = next++;
          const started = performance.now();
          const recipientAddress = `0x${tag === 'create' ? 'c0' : 'c1'}${'b0'.repeat(15)}${i.toString(16).padStart(8, '0')}`;
          const r = await call('POST', `/api/v1.0/vaults/${vault.vaultId}/withdrawals`, {
            recipientAddress,
            amount: '0.001',
            description: `bench ${tag} ${i}`,
          });
          ms.push(performance.now() - started);
          if (r.status === 200) ids.push(r.body.operationID as string);
          else refusals.push(`${r.status} ${JSON.stringify(r.body).slice(0, 200)}`);
        }
      }),
    );
    return ms;
  };

  await run(o.warmup, 'warm-up');
  const refusedInWarmup = refusals.length;
  const before = await o.api.child.stats();
  o.log(`create: ${o.withdrawals} ETH withdrawals from one vault, ${o.inFlight} requests in flight, quorum held`);
  const started = performance.now();
  const ms = await run(o.withdrawals, 'create');
  const seconds = (performance.now() - started) / 1000;
  const after = await o.api.child.stats();
  if (refusals.length) o.log(`${refusals.length} withdrawals refused, e.g. ${refusals[0]}`);

  const calls: Record<string, number> = {};
  for (const [m, c] of Object.entries(after.rpc.calls)) {
    const d = c - (before.rpc.calls[m] ?? 0);
    if (d) calls[m] = d;
  }
  const callCount = Object.values(calls).reduce((x, y) => x + y, 0);

  // Every withdrawal of the phase got its own nonce, with no gap: 0..count-1.
  const nonces: number[] = [];
  for (let i = 0; i < ids.length; i += 200) {
    const ops = await Promise.all(ids.slice(i, i + 200).map((id) => o.store.resolve(id)));
    for (const op of ops) nonces.push(Number((op?.unsigned.state as { nonce?: string } | undefined)?.nonce ?? -1));
  }
  const unique = new Set(nonces).size;
  const sorted = [...nonces].sort((a, b) => a - b);
  // The held operations must not reach the worker's reconciler in later phases.
  const opIds = (await Promise.all(ids.map((id) => o.store.resolve(id)))).flatMap((op) => (op ? [op.id] : []));
  for (let i = 0; i < opIds.length; i += 500) await o.redis.zrem(operationKeys(servicePrefix(o.prefix)).open, ...opIds.slice(i, i + 500));

  const refused = refusals.length - refusedInWarmup;
  return {
    withdrawals: o.withdrawals,
    inFlight: o.inFlight,
    created: ms.length - refused,
    refused,
    seconds: Math.round(seconds * 100) / 100,
    perSecond: Math.round((o.withdrawals / seconds) * 10) / 10,
    msP50: Math.round(pct(ms, 50) * 10) / 10,
    msP99: Math.round(pct(ms, 99) * 10) / 10,
    apiCpuMsPerWithdrawal: Math.round(((after.cpu.user + after.cpu.system - before.cpu.user - before.cpu.system) / 1000 / o.withdrawals) * 100) / 100,
    roundTripsPerWithdrawal: Math.round(((after.rpc.roundTrips - before.rpc.roundTrips) / o.withdrawals) * 1000) / 1000,
    callsPerWithdrawal: Math.round((callCount / o.withdrawals) * 1000) / 1000,
    calls,
    nonces: { count: nonces.length, unique, contiguous: unique === nonces.length && sorted.every((n, i) => n === i) },
  };
}
