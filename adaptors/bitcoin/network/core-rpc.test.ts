import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastRejected } from './backend.js';
import { classifyBitcoinReason } from './errors.js';
import { btcTextToSats, CoreRpcBackend } from './core-rpc.js';
import fixtures from './fixtures/core-rpc.json' with { type: 'json' };

type Fixture = { status: number; body: string };
const table = fixtures as unknown as Record<string, Fixture>;
const ADDR = 'tb1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlwsxeelp';
const SCRIPT = '0014f919604cfd20870ca8447b7efbd2602e5c66b3ee';
const SPENT_IN_MEMPOOL = '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a005';

interface Call {
  id: number;
  method: string;
  params: unknown[];
}

/** Which recorded answer a call gets: by method, then by its first parameter where answers differ. */
function fixtureFor(c: Call): Fixture {
  const p0 = c.params[0];
  switch (c.method) {
    case 'gettxout':
      return table[p0 === SPENT_IN_MEMPOOL ? 'gettxout spent' : 'gettxout live']!;
    case 'estimatesmartfee':
      return table[`estimatesmartfee ${String(p0)}`]!;
    case 'sendrawtransaction':
      return table[`sendrawtransaction ${String(p0)}`]!;
    case 'getrawtransaction':
      return table[p0 === 'unknown' ? 'getrawtransaction unknown' : 'getrawtransaction confirmed']!;
    default:
      return table[c.method]!;
  }
}

describe('Bitcoin Core RPC client against recorded responses', () => {
  let server: Server;
  let core: CoreRpcBackend;
  const auths: (string | undefined)[] = [];

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        auths.push(req.headers.authorization);
        const parsed = JSON.parse(body) as Call | Call[];
        const calls = Array.isArray(parsed) ? parsed : [parsed];
        const answers = calls.map((c) => ({ f: fixtureFor(c), id: c.id }));
        const bodies = answers.map((a) => a.f.body.replace('ID', String(a.id)));
        // Core's batch replies are always HTTP 200; single calls carry the error status.
        res.writeHead(Array.isArray(parsed) ? 200 : answers[0]!.f.status, { 'content-type': 'application/json' });
        res.end(Array.isArray(parsed) ? `[${bodies.join(',')}]` : bodies[0]);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
    const port = (server.address() as AddressInfo).port;
    core = new CoreRpcBackend(`http://rpcuser:s3cret@127.0.0.1:${port}/`, fetch, (a) => (a === ADDR ? SCRIPT : ''));
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('parses BTC amounts to satoshis without floats', () => {
    expect(btcTextToSats('20999999.97690000')).toBe(2_099_999_997_690_000n);
    expect(btcTextToSats('0.1')).toBe(10_000_000n);
    expect(() => btcTextToSats('1e-8')).toThrow();
  });

  it('reads height and genesis, sending credentials as Basic auth', async () => {
    expect(await core.tipHeight()).toBe(2542124);
    expect(await core.genesisHash()).toBe('000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943');
    expect(auths.at(-1)).toBe(`Basic ${Buffer.from('rpcuser:s3cret').toString('base64')}`);
  });

  it('scans the UTXO set exactly and drops outputs spent in the mempool', async () => {
    const utxos = await core.utxos([ADDR]);
    expect(utxos).toEqual([
      {
        txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001',
        vout: 0,
        value: 2_099_999_997_690_000n,
        address: ADDR,
        confirmed: true,
        blockHeight: 2542100,
      },
    ]);
  });

  it('converts estimatesmartfee (BTC/kvB) to sat/vB, undefined without data', async () => {
    expect(await core.feeRate(3)).toBe(17.01);
    expect(await core.feeRate(1)).toBeUndefined();
  });

  it('broadcasts and surfaces the reason of a refusal', async () => {
    expect(await core.broadcast('ok')).toBe('8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a004');
    const bad = (await core.broadcast('badsig').catch((e: unknown) => e)) as BroadcastRejected;
    expect(bad).toBeInstanceOf(BroadcastRejected);
    expect(bad.code).toBe(-26);
    expect(classifyBitcoinReason(bad.reason)?.kind === 'already_known').toBe(false);
    const mined = (await core.broadcast('mined').catch((e: unknown) => e)) as BroadcastRejected;
    expect(classifyBitcoinReason(mined.reason)?.kind === 'already_known').toBe(true);
  });

  it('lists the outputs a transaction spends, with the addresses that held them', async () => {
    expect(await core.prevouts('8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001')).toEqual([
      { txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a000', vout: 1, address: 'tb1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlwsxeelp' },
    ]);
  });

  it('reads confirmations of a transaction, unknown as undefined', async () => {
    expect(await core.txStatus('8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001')).toEqual({ confirmed: true, blockHeight: 2542100 });
    expect(await core.txStatus('unknown')).toBeUndefined();
  });
});
