import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { solanaFamily } from './index.js';

/** A block of the scripted chain: its hash, its parent's slot, and SOL payments (to, lamports) by signature. */
interface Scripted {
  hash: string;
  parent: number;
  pays?: Record<string, [string, number]>;
}

/**
 * Forks across skipped slots, which LiteSVM (one bank, no forks) cannot show: a scripted node
 * that answers getSlot, getBlock and getBlocks as Agave does at `confirmed`, its chain replaced
 * between scans. The scanner must find every fork through the hashes a skipped slot carries.
 */
describe('Solana deposits across forks and skipped slots (a scripted node)', () => {
  let chain: Map<number, Scripted>;
  let tip: number;
  let adaptor: LedgerAdaptor;
  let vault: string;
  const { redis, prefix } = testRedis();
  const store = new DepositStore(redis, prefix);
  const vaults = new VaultStore(redis, prefix);
  let scanner: LedgerScanner;
  const scan = () => scanner.pass({ maxBlocks: 100, deadline: Date.now() + 30_000 });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));

  const answer = (method: string, params: unknown[]): { result?: unknown; error?: { code: number; message: string } } => {
    if (method === 'getSlot') return { result: tip };
    if (method === 'getBlocks') {
      const [start, end] = params as [number, number];
      return { result: [...chain.keys()].filter((s) => s >= start && s <= Math.min(end, tip)).sort((x, y) => x - y) };
    }
    if (method !== 'getBlock') return { error: { code: -32601, message: 'Method not found' } };
    const [slot, config] = params as [number, { transactionDetails: string }];
    if (slot > tip) return { error: { code: -32004, message: `Block not available for slot ${slot}` } };
    const b = chain.get(slot);
    if (!b) return { error: { code: -32007, message: `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot` } };
    const head = {
      blockhash: b.hash,
      previousBlockhash: chain.get(b.parent)?.hash ?? '11111111111111111111111111111111',
      parentSlot: b.parent,
      blockHeight: null,
      blockTime: 1_700_000_000 + slot,
    };
    if (config.transactionDetails === 'none') return { result: head };
    const transactions = Object.entries(b.pays ?? {}).map(([sig, [to, lamports]]) => ({
      transaction: { signatures: [sig], message: { accountKeys: ['Payer1111111111111111111111111111111111111', to], instructions: [] } },
      meta: {
        err: null,
        fee: 5000,
        preBalances: [10_000_000_000, 0],
        postBalances: [10_000_000_000 - lamports - 5000, lamports],
        preTokenBalances: [],
        postTokenBalances: [],
      },
    }));
    return { result: { ...head, transactions } };
  };
  const fakeFetch: typeof fetch = (_url, init) => {
    const body = JSON.parse(String(init?.body)) as { id: number; method: string; params: unknown[] };
    return Promise.resolve(
      new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, ...answer(body.method, body.params) }), { headers: { 'content-type': 'application/json' } }),
    );
  };

  beforeAll(async () => {
    adaptor = solanaFamily.create(
      'solanadev',
      solanaFamily.optionsSchema.parse({ rpcUrl: 'http://scripted.invalid', commitment: 'confirmed', confirmations: 10 }),
      {
        logger: pino({ level: 'silent' }),
        fetch: fakeFetch,
        reservations: new Reservations(redis, prefix),
      },
    );
    const signer = ed25519Signer();
    vault = adaptor.addressFromPublicKey(signer.publicKey);
    await vaults.create({ vaultId: 'v', ledgerId: 'solanadev', kind: 'single', publicKey: Buffer.from(signer.publicKey.bytes).toString('hex'), createdAt: '' });
    chain = new Map([[100, { hash: 'H100', parent: 99 }]]);
    tip = 100;
    scanner = new LedgerScanner(
      adaptor,
      adaptor.depositSource!,
      { store, vaults, logger: pino({ level: 'silent' }) },
      { window: 50, gapLimit: 20, refreshMs: 60_000 },
    );
    await scan();
  });
  afterAll(() => redis.disconnect());

  it('a deposit before a skipped slot is reverted when a fork skips its block instead', async () => {
    // Chain A: 101 pays the vault, 102 skipped, 103 builds on 101.
    chain.set(101, { hash: 'A101', parent: 100, pays: { sigA: [vault, 1_000] } });
    chain.set(103, { hash: 'A103', parent: 101 });
    tip = 103;
    expect(await scan()).toMatchObject({ caughtUp: true });
    expect((await events()).map((e) => [e.type, e.deposit.txid])).toEqual([['deposit.detected', 'sigA']]);
    expect(await adaptor.depositSource!.block(102)).toMatchObject({ hash: 'A101', parentHash: 'A101', transfers: [] });
    // Chain B: 101 and 102 skipped, 103 and 104 build on 100.
    chain.delete(101);
    chain.set(103, { hash: 'B103', parent: 100 });
    chain.set(104, { hash: 'B104', parent: 103 });
    tip = 104;
    expect(await scan()).toMatchObject({ caughtUp: true });
    expect((await events()).map((e) => [e.type, e.deposit.txid])).toEqual([
      ['deposit.detected', 'sigA'],
      ['deposit.reverted', 'sigA'],
    ]);
    expect(await store.cursor('solanadev')).toMatchObject({ height: 104, hash: 'B104' });
    // The skipped slots of the new chain carry 100's hash.
    expect(await store.blockHash('solanadev', 102)).toBe('H100');
  });

  it('a slot scanned as skipped that a fork fills with a block is read, its deposit found', async () => {
    // Chain C: 105 skipped, 106 on 104; then a fork where 105 has a block paying the vault and 106 builds on it.
    chain.set(106, { hash: 'C106', parent: 104 });
    tip = 106;
    await scan();
    expect(await store.cursor('solanadev')).toMatchObject({ height: 106, hash: 'C106' });
    chain.set(105, { hash: 'D105', parent: 104, pays: { sigD: [vault, 2_000] } });
    chain.set(106, { hash: 'D106', parent: 105 });
    await scan();
    expect((await events()).at(-1)).toMatchObject({ type: 'deposit.detected', deposit: { txid: 'sigD', baseUnits: '2000' } });
    expect(await store.cursor('solanadev')).toMatchObject({ height: 106, hash: 'D106' });
  });
});
