import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import { spendableUtxos } from '../logic/spendable.js';
import { BroadcastRejected } from './backend.js';
import { classifyBitcoinReason } from './errors.js';
import { EsploraBackend } from './esplora.js';
import fixtures from './fixtures/esplora.json' with { type: 'json' };

type Fixture = { status: number; text?: string; json?: unknown };
const table = fixtures as unknown as Record<string, Fixture>;
const ADDR = 'tb1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlwsxeelp';

/** Replays recorded Esplora answers; POST /tx picks its answer by the body (`ok`, `lowfee`, …). */
function serve(): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const key = req.method === 'POST' ? `POST ${req.url} ${body}` : `GET ${req.url}`;
      const f = table[key] ?? { status: 404, text: 'Not Found' };
      res.writeHead(f.status, { 'content-type': f.json !== undefined ? 'application/json' : 'text/plain' });
      res.end(f.json !== undefined ? JSON.stringify(f.json) : f.text);
    });
  });
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve({ server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` })));
}

describe('Esplora client against recorded responses', () => {
  let server: Server;
  let esplora: EsploraBackend;

  beforeAll(async () => {
    const s = await serve();
    server = s.server;
    esplora = new EsploraBackend(`${s.url}/`, fetch);
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('reads height, genesis and UTXOs', async () => {
    expect(await esplora.tipHeight()).toBe(2542124);
    expect(await esplora.genesisHash()).toBe('000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943');
    const utxos = await esplora.utxos([ADDR]);
    expect(utxos.map((u) => [u.vout, u.value, u.confirmed, u.address])).toEqual([
      [0, 150_000n, true, ADDR],
      [1, 25_000n, false, ADDR],
      [0, 7_000n, false, ADDR],
    ]);
    expect(await esplora.prevouts(utxos[1]!.txid)).toEqual([
      { txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001', vout: 1, address: ADDR },
    ]);
  });

  it('counts confirmed coins plus own unconfirmed change, not unconfirmed deposits from others', async () => {
    const spendable = await spendableUtxos(esplora, [ADDR], [ADDR]);
    expect(spendable.map((u) => u.value)).toEqual([150_000n, 25_000n]);
  });

  it('tells used addresses from chain and mempool stats', async () => {
    expect(await esplora.addressesUsed([ADDR, 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx'])).toEqual([true, false]);
  });

  it('picks the fee estimate of the target or the next slower one', async () => {
    expect(await esplora.feeRate(1)).toBe(21.342);
    expect(await esplora.feeRate(3)).toBe(17.01);
    expect(await esplora.feeRate(7)).toBe(1.027);
    expect(await esplora.feeRate(2000)).toBeUndefined();
  });

  it('reads transaction status, unknown as undefined (electrs answers "unconfirmed" for a txid it does not have)', async () => {
    expect(await esplora.txStatus('8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001')).toEqual({ confirmed: true, blockHeight: 2542100 });
    expect(await esplora.txStatus('8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a002')).toEqual({ confirmed: false, blockHeight: undefined });
    expect(await esplora.txStatus(`${'00'.repeat(31)}ff`)).toBeUndefined();
  });

  it("broadcasts, and turns Esplora's error text into the node's reason", async () => {
    expect(await esplora.broadcast('ok')).toEqual({ txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a004', alreadyKnown: false });
    const low = await esplora.broadcast('lowfee').catch((e: unknown) => e);
    expect(low).toBeInstanceOf(BroadcastRejected);
    expect(low).toMatchObject({ reason: 'min relay fee not met, 110 < 141', code: -26 });
    expect(classifyBitcoinReason((low as BroadcastRejected).reason)?.kind).toBe('min_relay_fee');
    for (const body of ['mined', 'mempool']) {
      const e = (await esplora.broadcast(body).catch((x: unknown) => x)) as BroadcastRejected;
      expect(classifyBitcoinReason(e.reason)?.kind === 'already_known', e.reason).toBe(true);
    }
  });

  it('reports an unreachable server as retryable UnavailableError', async () => {
    const dead = new EsploraBackend('http://127.0.0.1:1', fetch);
    await expect(dead.tipHeight()).rejects.toBeInstanceOf(UnavailableError);
    await expect(dead.tipHeight()).rejects.toMatchObject({ retryable: true });
  });

  it("names electrs' per-address coin limit instead of a bare HTTP 400", async () => {
    // electrs' own text (src/errors.rs, TooManyUtxos) for an address past --utxos-limit.
    const capped = (async () =>
      new Response('Too many unspent transaction outputs (>500). Contact support to raise limits.', { status: 400 })) as unknown as typeof fetch;
    const err = await new EsploraBackend('http://esplora.invalid', capped).utxos([ADDR]).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({ retryable: false });
    expect((err as Error).message).toMatch(/--utxos-limit.*backend: core/);
  });
});
