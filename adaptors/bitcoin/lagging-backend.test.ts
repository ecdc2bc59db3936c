import pino from 'pino';
import { describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { UnavailableError } from '../../src/platform/errors.js';
import type { UnsignedWithdrawal } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { bitcoinFamily } from './index.js';
import { SPEND_SEARCH_MARGIN } from './logic/tx-status.js';
import fixtures from './network/fixtures/core-rpc.json' with { type: 'json' };

/**
 * Back ends that do not (yet) know a mined transaction, or hold a stale mempool: a Core
 * without a synced txindex, two Cores behind one balancer, a lagging Esplora instance. None of
 * them may end a withdrawal FAILED while its transaction may be mined.
 */

const table = fixtures as unknown as Record<string, { status: number; body: string }>;
const h = (c: string) => c.repeat(64);
const T = h('a'); // our withdrawal
const IN = h('b'); // the coin it spends
const P = h('c'); // its unconfirmed parent (the coin's transaction)
const GP = h('d'); // what the parent spends
const X = h('e'); // a conflicting spender
const PUB = `02${h('1')}`;

function unsignedOf(inputs: { txid: string; vout: number; parentInputs?: string[] }[]): UnsignedWithdrawal {
  return {
    state: {
      v: 1,
      ledgerId: 'btcregtest',
      feeRate: 1,
      inputs: inputs.map((i) => ({ ...i, value: '100000', address: 'bcrt1qx', format: 'p2wpkh', publicKey: PUB, keyId: 'k' })),
      outputs: [],
      reserved: [],
    },
  } as unknown as UnsignedWithdrawal;
}

function adaptorOf(backend: 'core' | 'esplora', fetchFn: typeof fetch, ledgerId = 'btcregtest') {
  const deps = { logger: pino({ level: 'silent' }), fetch: fetchFn, reservations: new Reservations({} as Redis, 'test:') };
  return bitcoinFamily.create(ledgerId, bitcoinFamily.optionsSchema.parse({ backend, url: 'http://127.0.0.1:1/' }), deps);
}

type Call = { id: number; method: string; params: unknown[] };
type CoreNode = (c: Call) => string; // a fixture body with ID

/** A fake Core over HTTP: each request (one call or one batch) goes to the next node in turn; records the requests. */
function fakeCore(nodes: CoreNode[]) {
  const requests: string[][] = [];
  let turn = 0;
  const fetchFn = (async (_u: string, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as Call | Call[];
    const node = nodes[turn++ % nodes.length] as CoreNode;
    const calls = [body].flat();
    requests.push(calls.map((c) => c.method));
    const bodies = calls.map((c) => node(c).replace('ID', String(c.id)));
    return new Response(Array.isArray(body) ? `[${bodies.join(',')}]` : bodies[0], { status: 200 });
  }) as typeof fetch;
  return { fetchFn, requests };
}

const ok = (result: unknown) => JSON.stringify({ result, error: null, id: 'ID' }).replace('"ID"', 'ID');
const LIVE = table['gettxout live']!.body;
const SPENT = table['gettxout spent']!.body;
const MINED = ok({ txid: T, blockhash: h('f'), confirmations: 1 });

describe('Bitcoin Core that cannot look a transaction up', () => {
  for (const wording of ['getrawtransaction no txindex', 'getrawtransaction indexing']) {
    it(`-5 "${wording}" with the inputs spent is no answer (retryable), never FAILED`, async () => {
      // The node has our transaction mined (it spent the input), but no (synced) txindex to find it.
      const { fetchFn } = fakeCore([
        (c) => (c.method === 'getrawtransaction' ? table[wording]!.body : c.method === 'gettxout' ? SPENT : table[c.method]!.body),
      ]);
      const s = await adaptorOf('core', fetchFn)
        .txStatus(T, unsignedOf([{ txid: IN, vout: 0 }]))
        .catch((e: unknown) => e);
      expect(s).toBeInstanceOf(UnavailableError);
      expect((s as UnavailableError).retryable).toBe(true);
    });
  }

  /**
   * A Core whose chain tip is 2542124 and whose block at `spentAt` (if any) holds X spending
   * IN:0; `getblock … 2` answers each block's confirmations as Core counts them.
   */
  const coreWithBlocks = (spentAt: number | undefined) => {
    const TIP = 2542124;
    return fakeCore([
      (c) => {
        if (c.method === 'getrawtransaction') return table['getrawtransaction unknown']!.body;
        if (c.method === 'gettxout') return SPENT;
        if (c.method === 'getblockhash') return ok(`${String(c.params[0]).padStart(64, '0')}`);
        if (c.method === 'getblock') {
          const height = Number(c.params[0]);
          const tx = [{ txid: h('7'), vin: [{ coinbase: '03' }] }, ...(height === spentAt ? [{ txid: X, vin: [{ txid: IN, vout: 0 }] }] : [])];
          return ok({ hash: c.params[0], height, confirmations: TIP - height + 1, tx });
        }
        return table[c.method]!.body;
      },
    ]);
  };

  it('a transaction Core truly does not have (txindex synced) with its input spent in a block fails, naming the spender found in the newest blocks, its block depth as the proof', async () => {
    const { fetchFn, requests } = coreWithBlocks(2542122);
    const s = await adaptorOf('core', fetchFn).txStatus(T, unsignedOf([{ txid: IN, vout: 0 }]));
    expect(s).toEqual({ state: 'failed', confirmations: 0, reason: `inputs spent by ${X}`, spentBy: X, proofConfirmations: 3 });
    // Newest first, and no further than the block that holds it.
    expect(requests.filter((r) => r.includes('getblock'))).toHaveLength(3);
  });

  it('a spend Core shows gone from the chain but in none of the newest blocks proves nothing: failed without proofConfirmations, never FAILED on it', async () => {
    const { fetchFn, requests } = coreWithBlocks(undefined);
    const s = await adaptorOf('core', fetchFn).txStatus(T, unsignedOf([{ txid: IN, vout: 0 }]));
    expect(s).toMatchObject({ state: 'failed', reason: 'inputs spent by another transaction' });
    expect(s).not.toHaveProperty('proofConfirmations');
    // The regtest ledger's 1 confirmation plus the search margin.
    expect(requests.filter((r) => r.includes('getblock'))).toHaveLength(1 + SPEND_SEARCH_MARGIN);
  });

  it('asks getrawtransaction and gettxout in one batch: two nodes behind a balancer never mix their answers', async () => {
    // Node "lag" is a block behind with an empty mempool: it never saw T, the input is unspent there.
    // Node "fresh" has T mined: the input is spent. Requests alternate between them.
    const lag: CoreNode = (c) =>
      c.method === 'getrawtransaction' ? table['getrawtransaction unknown']!.body : c.method === 'gettxout' ? LIVE : table[c.method]!.body;
    const fresh: CoreNode = (c) => (c.method === 'getrawtransaction' ? MINED : c.method === 'gettxout' ? SPENT : table[c.method]!.body);
    const { fetchFn, requests } = fakeCore([lag, fresh]);
    const adaptor = adaptorOf('core', fetchFn);
    const unsigned = unsignedOf([{ txid: IN, vout: 0 }]);
    const first = await adaptor.txStatus(T, unsigned);
    expect(first).toMatchObject({ state: 'unknown' });
    expect(requests[0]).toEqual(expect.arrayContaining(['getrawtransaction', 'gettxout']));
    expect(await adaptor.txStatus(T, unsigned)).toMatchObject({ confirmations: 1 });
  });

  it('an input spent only in its mempool (still in the chain UTXO set) leaves the unknown transaction pending, not FAILED', async () => {
    const { fetchFn } = fakeCore([
      (c) =>
        c.method === 'getrawtransaction'
          ? table['getrawtransaction unknown']!.body
          : c.method === 'gettxout'
            ? c.params[2]
              ? SPENT
              : LIVE
            : table[c.method]!.body,
    ]);
    expect(await adaptorOf('core', fetchFn).txStatus(T, unsignedOf([{ txid: IN, vout: 0 }]))).toMatchObject({ state: 'pending' });
  });

  it('health is unhealthy, saying why, without a txindex or with one not synced; healthy once synced', async () => {
    const withIndex = (key: string) => fakeCore([(c) => (c.method === 'getindexinfo' ? table[key]!.body : table[c.method]!.body)]).fetchFn;
    const none = await adaptorOf('core', withIndex('getindexinfo none'), 'btctest').health();
    expect(none).toMatchObject({ healthy: false, errorMessage: expect.stringMatching(/without a transaction index \(set txindex=1\)/) });
    const syncing = await adaptorOf('core', withIndex('getindexinfo syncing'), 'btctest').health();
    expect(syncing).toMatchObject({ healthy: false, errorMessage: expect.stringMatching(/transaction index is not synced yet \(indexed to height 2401733\)/) });
    expect(await adaptorOf('core', withIndex('getindexinfo synced'), 'btctest').health()).toEqual({ healthy: true, height: 2542124, network: 'testnet' });
  });
});

describe('Esplora instance with a stale mempool', () => {
  /** A fake Esplora: `routes` by path; 404 elsewhere. */
  const fakeEsplora = (routes: Record<string, unknown>) =>
    (async (u: string | URL | Request) => {
      const path = new URL(String(u)).pathname;
      if (!(path in routes)) return new Response('Transaction not found', { status: 404 });
      const v = routes[path];
      return new Response(typeof v === 'string' ? v : JSON.stringify(v), { status: 200 });
    }) as typeof fetch;
  const unconfirmed = { confirmed: false };
  const inBlock = { confirmed: true, block_height: 120, block_hash: h('9'), block_time: 1 };

  // The tip is 125 and the spender's block 120: the proof has 6 confirmations.
  const tip = { '/blocks/tip/height': '125' };
  for (const [label, spender, expected] of [
    ['only in its mempool → pending', unconfirmed, { state: 'pending' }],
    ['in a block → failed, naming it, with its block as the proof', inBlock, { state: 'failed', spentBy: X, proofConfirmations: 6 }],
  ] as const) {
    it(`an input spent by another transaction ${label}`, async () => {
      // T unknown to the instance; its input spent by X.
      const f = fakeEsplora({ ...tip, [`/tx/${T}/status`]: unconfirmed, [`/tx/${IN}/outspend/0`]: { spent: true, txid: X, vin: 0, status: spender } });
      expect(await adaptorOf('esplora', f).txStatus(T, unsignedOf([{ txid: IN, vout: 0 }]))).toMatchObject(expected);
    });

    it(`the parent of an input replaced by a transaction ${label}`, async () => {
      // T and its parent P unknown to the instance; P's input spent by X (a speed-up of P).
      const f = fakeEsplora({
        ...tip,
        [`/tx/${T}/status`]: unconfirmed,
        [`/tx/${P}/status`]: unconfirmed,
        [`/tx/${P}/outspend/1`]: { spent: false },
        [`/tx/${GP}/outspend/0`]: { spent: true, txid: X, vin: 0, status: spender },
      });
      const s = await adaptorOf('esplora', f).txStatus(T, unsignedOf([{ txid: P, vout: 1, parentInputs: [`${GP}:0`] }]));
      if (expected.state === 'pending') expect(s).toMatchObject({ state: 'pending' });
      else expect(s).toMatchObject({ state: 'failed', reason: expect.stringContaining(`its input ${P}:1 no longer exists`), proofConfirmations: 6 });
    });
  }
});
