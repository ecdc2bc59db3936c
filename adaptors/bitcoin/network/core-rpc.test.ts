import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BroadcastRejected } from './backend.js';
import { classifyBitcoinReason } from './errors.js';
import { btcTextToSats, CoreRpcBackend } from './core-rpc.js';
import fixtures from './fixtures/core-rpc.json' with { type: 'json' };
import type { BtcContext } from '../context.js';
import { bitcoinDepositSource } from '../logic/deposit-source.js';

type Fixture = { status: number; body: string };
const table = fixtures as unknown as Record<string, Fixture>;
const ADDR = 'tb1qlyvkqn8ayzrse2zy0dl0h5nq9ewxdvlwsxeelp';
const SCRIPT = '0014f919604cfd20870ca8447b7efbd2602e5c66b3ee';
const SPENT_IN_MEMPOOL = '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a005';
/** The block the deposit tests read, at 2542100; the one below is answered by a node on Core 22 (no prevouts in getblock). */
const BLOCK = '0000000000000011a3a1b1c1d1e1f10111213141516171819202122232425262';
const OLD_CORE_BLOCK = '000000000000000f1e2d3c4b5a69788796a5b4c3d2e1f0a1b2c3d4e5f6a7b8c9';
const SPENT_TX = '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a000';
const PAST_TIP = 2542125;
const SENDER = 'tb1qw508d6qejxtdg4y5r3zarvary0c5xw7kxpjzsx';
const CHANGE = 'tb1pqqqqp399et2xygdj5xreqhjjvcmzhxw4aywxecjdzew6hylgvsesf3hn0c';

/** Not recordings: Core's answers as src/rpc/mempool.cpp writes them (the entry trimmed; the client reads only whether there is one). */
const IN_MEMPOOL = '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a004';
const MEMPOOL_ENTRY: Fixture = { status: 200, body: '{"result":{"vsize":141,"weight":561,"time":1718000000,"height":2542124},"error":null,"id":ID}' };
const NOT_IN_MEMPOOL: Fixture = { status: 500, body: '{"result":null,"error":{"code":-5,"message":"Transaction not in mempool"},"id":ID}' };

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
    case 'getmempoolentry':
      return p0 === IN_MEMPOOL ? MEMPOOL_ENTRY : NOT_IN_MEMPOOL;
    case 'getrawtransaction':
      return table[p0 === 'unknown' ? 'getrawtransaction unknown' : p0 === SPENT_TX ? 'getrawtransaction spent' : 'getrawtransaction confirmed']!;
    case 'getblockhash':
      if (p0 === 0) return table.getblockhash!;
      if (p0 === PAST_TIP) return table['getblockhash out of range']!;
      return table[p0 === 2542099 ? 'getblockhash 2542099 (its node runs Core 22)' : 'getblockhash 2542100']!;
    case 'getblock':
      if (c.params[1] !== 3) throw new Error(`getblock asked with verbosity ${String(c.params[1])}`);
      return table[p0 === OLD_CORE_BLOCK ? 'getblock 3 on Core 22 (answered as 2: no prevouts)' : 'getblock 3']!;
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
        const batch = Array.isArray(parsed) ? parsed : [parsed];
        calls.push(...batch.map((c) => c.method));
        const answers = batch.map((c) => ({ f: fixtureFor(c), id: c.id }));
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
  const calls: string[] = [];

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
    const TXID = '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a004';
    expect(await core.broadcast('ok', `${'00'.repeat(31)}ff`)).toEqual({ txid: TXID, alreadyKnown: false });
    // Core answers a send of what its mempool holds with the txid too: its mempool entry, asked first in the batch, tells.
    expect(await core.broadcast('ok', IN_MEMPOOL)).toEqual({ txid: TXID, alreadyKnown: true });
    const bad = (await core.broadcast('badsig', '').catch((e: unknown) => e)) as BroadcastRejected;
    expect(bad).toBeInstanceOf(BroadcastRejected);
    expect(bad.code).toBe(-26);
    expect(classifyBitcoinReason(bad.reason)?.kind === 'already_known').toBe(false);
    const mined = (await core.broadcast('mined', '').catch((e: unknown) => e)) as BroadcastRejected;
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

  it('reads the tip as one answer, and a block with its senders from getblock verbosity 3 (two calls, whatever the block)', async () => {
    expect(await core.tip()).toEqual({ height: 2542124, hash: '00000000000000131ab1c2d3e4f5061728394a5b6c7d8e9f0a1b2c3d4e5f6071' });
    calls.length = 0;
    const block = await core.blockAt(2542100);
    expect(calls).toEqual(['getblockhash', 'getblock']);
    expect(block).toEqual({
      hash: BLOCK,
      height: 2542100,
      parentHash: '00000000000000093c0c8e2f5b1d9a7e6f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c',
      time: 1700000000,
      txs: [
        {
          txid: '4d3c2b1a0f9e8d7c6b5a49382716051f2e3d4c5b6a79881726354453627180a1',
          coinbase: true,
          from: [],
          outputs: [{ address: 'tb1qrp33g0q5c5txsp9arysrx4k6zdkfs4nce4xj0gdcccefvpysxf3q0sl5k7', value: 1_221_410n }, { value: 0n }],
        },
        {
          txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001',
          coinbase: false,
          from: [SENDER],
          outputs: [{ address: ADDR, value: 50_000n }, { address: CHANGE, value: 48_590n }, { value: 0n }],
        },
      ],
    });
    expect(await core.blockAt(PAST_TIP)).toBeUndefined();
  });

  it('a node whose getblock has no prevouts (Core before 23): the spent outputs are read with getrawtransaction', async () => {
    calls.length = 0;
    const block = await core.blockAt(2542099);
    expect(calls).toEqual(['getblockhash', 'getblock', 'getrawtransaction']);
    expect(block?.hash).toBe(OLD_CORE_BLOCK);
    expect(block?.txs.map((t) => t.from)).toEqual([[], [SENDER]]);
  });

  it("is the family's deposit source: outputs to addresses, coinbase left out, senders known", async () => {
    const source = bitcoinDepositSource({ backend: core, nativeAsset: { symbol: 'BTC', decimals: 8, native: true } } as unknown as BtcContext)!;
    expect(await source.tip()).toMatchObject({ height: 2542124 });
    const block = await source.block(2542100);
    expect(block).toMatchObject({ height: 2542100, hash: BLOCK, time: 1_700_000_000_000 });
    expect(block?.transfers).toEqual([
      {
        txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001',
        index: 'out:0',
        to: ADDR,
        asset: 'BTC',
        configured: true,
        amount: 50_000n,
        from: [SENDER],
      },
      {
        txid: '8e5e4ae8ce8b4a2a6a3bd6a1bd8fd3bd8d0f6cd80d6bb0d1b1e0e0c8f1f1a001',
        index: 'out:1',
        to: CHANGE,
        asset: 'BTC',
        configured: true,
        amount: 48_590n,
        from: [SENDER],
      },
    ]);
  });
});
