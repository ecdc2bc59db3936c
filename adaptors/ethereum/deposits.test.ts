import { JsonRpcProvider, Wallet } from 'ethers';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { testRedis } from '../../test/helpers/redis.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { ethereumFamily } from './index.js';
import { ANVIL_DEV_KEY, DevChainFunder, type DemoToken } from './local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from './local-node/local-anvil.js';
import { DEPLOYER_KEY, newKey, type TestKey } from './test-kit.js';

/**
 * Deposits on a real anvil: ETH and ERC-20 payments to vaults found by the scanner through the
 * family's deposit source (a block with its transactions, the block's Transfer logs), a
 * vault's own transfers left out, and anvil_reorg replacing blocks before and after the depth.
 */
describe('Ethereum deposits on anvil', () => {
  let anvil: LocalAnvil;
  let funder: DevChainFunder;
  let demo: DemoToken;
  let adaptor: LedgerAdaptor;
  let a: TestKey;
  let b: TestKey;
  let other: DemoToken;
  let stranger: DevChainFunder;
  const { redis, prefix } = testRedis();
  const store = new DepositStore(redis, prefix);
  const vaults = new VaultStore(redis, prefix);
  const logger = pino({ level: process.env.DEBUG_DEPOSITS ? 'debug' : 'silent' });
  let scanner: LedgerScanner;
  const scan = () => scanner.pass({ maxBlocks: 1000, deadline: Date.now() + 60_000 });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    const body = (await res.json()) as { result?: T; error?: { message: string } };
    if (body.error) throw new Error(`${method}: ${body.error.message}`);
    return body.result as T;
  };
  const height = async () => Number(await rpc<string>('eth_blockNumber'));
  const mine = (n: number) => rpc('anvil_mine', [`0x${n.toString(16)}`]);
  const walletOf = (k: TestKey) =>
    new Wallet(`0x${Buffer.from(k.priv).toString('hex')}`, new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true, cacheTimeout: -1 }));

  beforeAll(async () => {
    // anvil_reorg needs the replaced blocks' states kept.
    anvil = await startAnvil({ keepStates: 64 });
    funder = new DevChainFunder(anvil.url);
    demo = await funder.deployDemoToken();
    adaptor = ethereumFamily.create('ethdev', ethereumFamily.optionsSchema.parse({ rpcUrl: anvil.url, tokens: [demo], confirmations: 2 }), {
      logger,
      fetch,
      reservations: new Reservations(redis, prefix),
    });
    a = newKey(adaptor);
    b = newKey(adaptor);
    for (const k of [a, b]) {
      await vaults.create({
        vaultId: k.source.vaultId,
        ledgerId: 'ethdev',
        kind: 'single',
        publicKey: Buffer.from(k.publicKey.bytes).toString('hex'),
        createdAt: '',
      });
    }
    // A token this ledger is not configured with, from another deployer.
    stranger = new DevChainFunder(anvil.url, DEPLOYER_KEY);
    other = await stranger.deployDemoToken('OTHER', 6);
    scanner = new LedgerScanner(
      adaptor,
      adaptor.depositSource!,
      { store, vaults, logger },
      { window: 50, gapLimit: 20, refreshMs: 60_000, startAfter: await height() },
    );
  }, 120_000);
  afterAll(async () => {
    redis.disconnect();
    funder?.destroy();
    stranger?.destroy();
    await anvil?.stop();
  });

  it('finds ETH, a configured token and an unconfigured one; leaves out a vault paying itself; reports a payment between vaults on the receiving side', async () => {
    const eth = await funder.sendEth(a.address, 10n ** 18n);
    const token = await funder.sendToken(demo.contract, a.address, 5_000_000n);
    const unknown = await stranger.sendToken(other.contract, a.address, 7n);
    const wallet = walletOf(a);
    const self = await (await wallet.sendTransaction({ to: a.address, value: 1000n })).wait();
    const toB = await (await wallet.sendTransaction({ to: b.address, value: 2000n })).wait();
    await scan();
    const seen = (await events()).filter((e) => e.type === 'deposit.detected');
    expect(seen.map((e) => [e.deposit.txid, e.deposit.index, e.deposit.asset, e.deposit.baseUnits, e.deposit.credited, e.vaultId])).toEqual([
      [eth, 'value', 'ETH', (10n ** 18n).toString(), true, a.source.vaultId],
      [token, 'log:0', demo.symbol, '5000000', true, a.source.vaultId],
      [unknown, 'log:0', other.contract.toLowerCase(), '7', false, a.source.vaultId],
      [toB!.hash, 'value', 'ETH', '2000', true, b.source.vaultId],
    ]);
    expect(seen.map((e) => e.deposit.txid)).not.toContain(self!.hash);
    expect(seen[0]?.deposit.from).toEqual([new Wallet(ANVIL_DEV_KEY).address.toLowerCase()]);
  });

  it('confirms at the ledger depth; a reorg before the depth reverts what the new chain lacks, once it is as high', async () => {
    await mine(2);
    await scan();
    expect((await events()).filter((e) => e.type === 'deposit.confirmed').length).toBe(4);
    const late = await funder.sendEth(b.address, 3n);
    await scan();
    expect((await events()).at(-1)).toMatchObject({ type: 'deposit.detected', deposit: { txid: late, state: 'DETECTED' } });
    // Its block replaced by one without it (anvil_reorg keeps the height).
    await rpc('anvil_reorg', [1, []]);
    await scan();
    const last = (await events()).at(-1)!;
    expect(last).toMatchObject({ type: 'deposit.reverted', sequence: 2, deposit: { txid: late, state: 'REVERTED' } });
    expect((await store.cursor('ethdev'))?.hash).toBe((await rpc<{ hash: string }>('eth_getBlockByNumber', ['latest', false])).hash);
  });

  it('a reorg past the depth leaves CONFIRMED deposits CONFIRMED, flagged', async () => {
    // The funder's nonce counter still counts the transaction the reorg above dropped: a fresh one.
    funder.destroy();
    funder = new DevChainFunder(anvil.url);
    const deep = await funder.sendEth(a.address, 4n);
    await mine(3);
    await scan();
    const id = `ethdev:${deep}:value`;
    expect((await store.get(id))?.state).toBe('CONFIRMED');
    await rpc('anvil_reorg', [4, []]);
    await scan();
    expect(await store.get(id)).toMatchObject({ state: 'CONFIRMED', reorganisedAfterConfirmation: true });
    expect((await events()).filter((e) => e.depositId === id).map((e) => e.type)).toEqual(['deposit.detected', 'deposit.confirmed']);
  });
});
