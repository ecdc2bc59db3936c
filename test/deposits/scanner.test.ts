import pino from 'pino';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import { singleAddress } from '../../src/vaults/vault-addresses.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { testRedis } from '../helpers/redis.js';
import { bip44Vault, FakeChain, fakeAdaptor, singleVault, transfer } from './fake-chain.js';

const logger = pino({ level: 'silent' });
const FAR = () => Date.now() + 60_000;

describe('the deposit scanner on a chain in memory', () => {
  const { redis, prefix: base } = testRedis();
  afterAll(() => redis.disconnect());
  let n = 0;
  let prefix: string;
  let chain: FakeChain;
  let store: DepositStore;
  let vaults: VaultStore;
  const adaptor = fakeAdaptor(3);
  const scanner = (window = 10) => new LedgerScanner(adaptor, chain, { store, vaults, logger }, { window, gapLimit: 5, refreshMs: 60_000, startAfter: 0 });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));
  const kinds = async () => (await events()).map((e) => `${e.type.slice(8)} ${e.depositId.split(':')[1]} #${e.sequence}`);
  const scan = (s = scanner()) => s.pass({ maxBlocks: 1000, deadline: FAR() });

  beforeEach(() => {
    prefix = `${base}${++n}:`;
    chain = new FakeChain();
    store = new DepositStore(redis, prefix);
    vaults = new VaultStore(redis, prefix);
  });

  it('detects a payment to a vault, confirms it at the ledger depth, each once, with the events in order', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const to = singleAddress(adaptor, v).address;
    const s = scanner();
    const t = transfer(to, 5000n);
    chain.mine(t);
    expect(await scan(s)).toMatchObject({ applied: 1, caughtUp: true });
    expect(await kinds()).toEqual([`detected ${t.txid} #1`]);
    chain.mineEmpty(1);
    await scan(s);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${t.txid} #1`]);
    chain.mineEmpty(1);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${t.txid} #1`, `confirmed ${t.txid} #2`]);
    const [d] = await store.many([`fakedev:${t.txid}:out:0`]);
    expect(d).toMatchObject({
      vaultId: 'v1',
      address: to,
      amount: '0.00005',
      baseUnits: '5000',
      state: 'CONFIRMED',
      blockHeight: 1,
      confirmations: 3,
      credited: true,
      from: ['outsider'],
    });
    const e = (await events())[1] as DepositEvent;
    expect(e.deposit).toMatchObject({ state: 'CONFIRMED', confirmations: 3, baseUnits: '5000' });
  });

  it('confirms at DEPOSIT_CONFIRMATIONS when it names the ledger, not at the ledger depth withdrawals use', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const t = transfer(singleAddress(adaptor, v).address, 5000n);
    const s = new LedgerScanner(adaptor, chain, { store, vaults, logger }, { window: 10, gapLimit: 5, refreshMs: 60_000, startAfter: 0, confirmations: 5 });
    chain.mine(t);
    chain.mineEmpty(3);
    await scan(s);
    // Four deep: the ledger's 3 would have confirmed it.
    expect(await kinds()).toEqual([`detected ${t.txid} #1`]);
    chain.mineEmpty(1);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${t.txid} #1`, `confirmed ${t.txid} #2`]);
  });

  it('leaves out the vault paying itself (change, a move between its addresses), reports a payment from another vault on the receiving side, keeps memos', async () => {
    const a = bip44Vault('a');
    const b = singleVault('b');
    await vaults.create(a.record);
    await vaults.create(b);
    const a0 = a.addressAt(adaptor, 0, 0);
    const a1 = a.addressAt(adaptor, 0, 1);
    const change = a.addressAt(adaptor, 1, 0);
    const bAddr = singleAddress(adaptor, b).address;
    const changeBack = transfer(change, 700n, { from: [a0], index: 'out:1' });
    const move = transfer(a1, 100n, { from: [a0] });
    const fromB = transfer(a1, 300n, { from: [bAddr], memo: 'invoice 42', muxedId: '7' });
    const stranger = transfer('fknobody', 1n);
    const zero = transfer(a0, 0n);
    chain.mine(changeBack, move, fromB, stranger, zero);
    await scan();
    const seen = await events();
    expect(seen.map((e) => e.depositId)).toEqual([`fakedev:${fromB.txid}:out:0`]);
    expect(seen[0]?.deposit).toMatchObject({ vaultId: 'a', memo: 'invoice 42', muxedId: '7', path: '0/1' });
  });

  it('records a token the ledger is not configured with as not credited', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const t = transfer(singleAddress(adaptor, v).address, 1n, { asset: '0xdeadbeef', configured: false, index: 'log:3' });
    chain.mine(t);
    await scan();
    // Its decimals are unknown: the amount stays in base units.
    expect((await events())[0]?.deposit).toMatchObject({ asset: '0xdeadbeef', credited: false, index: 'log:3', amount: '1', baseUnits: '1' });
  });

  it('watches every BIP44 address up to the gap past the last used one, and moves the window as deposits arrive', async () => {
    const a = bip44Vault('a');
    await vaults.create(a.record);
    const s = scanner();
    // gapLimit 5: receive 0..4 watched at first; a payment to 4 opens 5..9.
    const t4 = transfer(a.addressAt(adaptor, 0, 4), 1n);
    const t5 = transfer(a.addressAt(adaptor, 0, 5), 2n);
    chain.mine(t4, t5);
    await scan(s);
    expect((await events()).map((e) => e.deposit.path)).toEqual(['0/4']);
    const t9 = transfer(a.addressAt(adaptor, 0, 9), 3n);
    const c4 = transfer(a.addressAt(adaptor, 1, 4), 4n);
    chain.mine(t9, c4);
    await scan(s);
    expect((await events()).map((e) => e.deposit.path)).toEqual(['0/4', '0/9', '1/4']);
    // Receive 0..14 (used up to 9), change 0..9 (used up to 4).
    await s.watched.refresh();
    expect(s.watched.size).toBe(15 + 10);
  });

  it('a vault registered during a pass is watched in the blocks scanned after its registration', async () => {
    const v = singleVault('late');
    const t = transfer(singleAddress(adaptor, v).address, 9n);
    chain.mineEmpty(2);
    chain.mine(t);
    let looks = 0;
    const keepGoing = async () => {
      if (++looks === 2) await vaults.create(v);
      return true;
    };
    await scanner().pass({ maxBlocks: 100, deadline: FAR(), keepGoing });
    expect(await kinds()).toEqual([`detected ${t.txid} #1`]);
  });

  it('a reorganisation before the depth: a deposit the new chain holds elsewhere stays the same deposit; one it lacks is REVERTED once the chain is as high again', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const to = singleAddress(adaptor, v).address;
    const s = scanner();
    const kept = transfer(to, 1n);
    const lost = transfer(to, 2n);
    chain.mine();
    chain.mine(kept, lost);
    chain.mine();
    await scan(s);
    expect(await kinds()).toEqual([`detected ${kept.txid} #1`, `detected ${lost.txid} #1`]);
    chain.rewindTo(1);
    chain.mine();
    await scan(s);
    // The new chain is at height 3 only: what it lacks waits for it to be as high as before.
    expect((await store.many([`fakedev:${lost.txid}:out:0`]))[0]?.state).toBe('DETECTED');
    chain.mine(kept);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${kept.txid} #1`, `detected ${lost.txid} #1`, `reverted ${lost.txid} #2`]);
    expect((await store.many([`fakedev:${kept.txid}:out:0`]))[0]).toMatchObject({ state: 'DETECTED', blockHeight: 3 });
    chain.mineEmpty(2);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${kept.txid} #1`, `detected ${lost.txid} #1`, `reverted ${lost.txid} #2`, `confirmed ${kept.txid} #2`]);
    // It comes back later after all: the same deposit, DETECTED again.
    chain.mine(lost);
    await scan(s);
    expect((await kinds()).at(-1)).toBe(`detected ${lost.txid} #3`);
  });

  it('a reorganisation past the depth leaves a CONFIRMED deposit CONFIRMED and flags it', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const t = transfer(singleAddress(adaptor, v).address, 1n);
    const s = scanner();
    chain.mine(t);
    chain.mineEmpty(3);
    await scan(s);
    chain.rewindTo(0);
    chain.mineEmpty(5);
    await scan(s);
    expect(await kinds()).toEqual([`detected ${t.txid} #1`, `confirmed ${t.txid} #2`]);
    expect((await store.many([`fakedev:${t.txid}:out:0`]))[0]).toMatchObject({ state: 'CONFIRMED', reorganisedAfterConfirmation: true });
  });

  it('a reorganisation at the same height (the tip replaced) is found from the tip hash', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const t = transfer(singleAddress(adaptor, v).address, 1n);
    const s = scanner();
    chain.mine(t);
    await scan(s);
    chain.rewindTo(0);
    chain.mine();
    await scan(s);
    expect(await kinds()).toEqual([`detected ${t.txid} #1`, `reverted ${t.txid} #2`]);
    expect((await store.cursor('fakedev'))?.hash).toBe(chain.blocks[1]?.hash);
  });

  it('a reorganisation deeper than the window stops the scan and says so', async () => {
    const s = scanner(2);
    chain.mineEmpty(5);
    await scan(s);
    chain.rewindTo(1);
    chain.mineEmpty(5);
    const r = await scan(s);
    expect(r.waiting).toMatch(/deeper than the reorg window \(2 blocks\)/);
    expect((await store.nodeView('fakedev'))?.waiting).toMatch(/deeper/);
  });

  it('a node down or behind is waited for and shown; the scan goes on when it is back', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const t = transfer(singleAddress(adaptor, v).address, 1n);
    const s = scanner();
    chain.mineEmpty(2);
    await scan(s);
    chain.down = true;
    expect((await scan(s)).waiting).toMatch(/does not answer: connect ECONNREFUSED/);
    expect((await store.nodeView('fakedev'))?.waiting).toMatch(/ECONNREFUSED/);
    chain.down = false;
    chain.mine(t);
    chain.visibleTo = 1;
    expect((await scan(s)).waiting).toMatch(/node is at block 1, behind the scan at 2/);
    chain.visibleTo = undefined;
    expect(await scan(s)).toMatchObject({ applied: 1, caughtUp: true });
    expect(await kinds()).toEqual([`detected ${t.txid} #1`]);
    expect((await store.nodeView('fakedev'))?.waiting).toBeUndefined();
  });

  it('a scan cut off mid-way and two scanners racing write every event once', async () => {
    const v = singleVault('v1');
    await vaults.create(v);
    const to = singleAddress(adaptor, v).address;
    const ts = Array.from({ length: 8 }, (_, i) => transfer(to, BigInt(i + 1)));
    for (const t of ts) chain.mine(t);
    chain.failAt = 5;
    expect((await scan()).waiting).toMatch(/socket hang up/);
    expect((await events()).filter((e) => e.type === 'deposit.detected').length).toBe(4);
    // Two scanners (two workers) from the same cursor, side by side.
    await Promise.all([scan(scanner()), scan(scanner()), scan(scanner())]);
    const all = await events();
    const detected = all.filter((e) => e.type === 'deposit.detected').map((e) => e.deposit.baseUnits);
    expect(detected).toEqual(['1', '2', '3', '4', '5', '6', '7', '8']);
    expect(all.filter((e) => e.type === 'deposit.confirmed').length).toBe(6);
    expect(new Set(all.map((e) => `${e.depositId}#${e.sequence}`)).size).toBe(all.length);
  });
});
