import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { DevChainFunder } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { loadConfig } from '../../src/config/load-config.js';
import { scanSchedulerId } from '../../src/deposits/deposit-jobs.js';
import { scannedLedgers } from '../../src/deposits/scanned-ledgers.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { LedgerRegistry } from '../../src/ledger/registry.js';
import { ConfigError } from '../../src/platform/config-error.js';
import { READ_KEY, startTestService, type TestService } from '../helpers/service.js';
import { provider, until } from '../pipeline/support.js';
import { FakeChain, fakeAdaptor } from './fake-chain.js';
import { registerVault } from './told-once.js';

/** DEPOSIT_LEDGERS: which ledgers a process scans for deposits, or none. */
describe('DEPOSIT_LEDGERS', () => {
  const parse = (value: string) =>
    loadConfig(
      {
        SANDBOX: 'false',
        LEDGERS: JSON.stringify({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }),
        API_KEYS: JSON.stringify([{ name: 'a', key: 'a-key-0123456789abcdef0123456789abcdef', scopes: ['read'] }]),
        CUSTODY_URL: 'http://127.0.0.1:9/custody',
        DEPOSIT_LEDGERS: value,
      },
      families,
      'test',
    ).depositLedgers;

  it('reads `none` as no ledger, a comma list as its ids, empty as unset; refuses an empty item', () => {
    expect(parse('none')).toEqual([]);
    expect(parse(' NONE ')).toEqual([]);
    expect(parse(' ethdev , eth2,ethdev')).toEqual(['ethdev', 'eth2']);
    // Empty is unset (compose passes `${DEPOSIT_LEDGERS:-}`): every ledger with a source.
    expect(parse('')).toBeUndefined();
    expect(() => parse('ethdev,,eth2')).toThrow(/DEPOSIT_LEDGERS.*comma-separated ledger ids.*or `none`/);
  });

  describe('against the configured ledgers', () => {
    const withSource = (id: string) => ({ ...fakeAdaptor(), ledgerId: id, depositSource: new FakeChain() }) as LedgerAdaptor;
    const registry = new LedgerRegistry([withSource('eth'), withSource('stellar'), { ...fakeAdaptor(), ledgerId: 'sol' } as LedgerAdaptor]);
    const ids = (listed: string[] | undefined) => scannedLedgers(registry, listed).map((a) => a.ledgerId);

    it('unset: every ledger with a deposit source; a list: those (any case); none: none', () => {
      expect(ids(undefined)).toEqual(['eth', 'stellar']);
      expect(ids(['STELLAR'])).toEqual(['stellar']);
      expect(ids([])).toEqual([]);
    });

    it('a ledger not configured, or without a deposit source, is a configuration error naming the valid ids', () => {
      let err: unknown;
      try {
        scannedLedgers(registry, ['eth', 'btc', 'sol']);
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        "DEPOSIT_LEDGERS: 'btc' is not a configured ledger. Valid values: ledger ids from eth, stellar, comma-separated, or none",
        "DEPOSIT_LEDGERS: 'sol' has no deposit source. Valid values: ledger ids from eth, stellar, comma-separated, or none",
      ]);
      expect(() => scannedLedgers(new LedgerRegistry([]), ['eth'])).toThrow(/Valid values: none \(no configured ledger has a deposit source\)/);
    });
  });

  describe('in the worker, on anvil', () => {
    let anvil: LocalAnvil;
    let funder: DevChainFunder;
    const services: TestService[] = [];
    // Two ledgers on one node: the scanner of one is on, the other's is off.
    let ledgers: Record<string, unknown>;
    const env = (depositLedgers: string, height: number) => ({
      DEPOSIT_LEDGERS: depositLedgers,
      DEPOSIT_POLL_MS: '200',
      DEPOSIT_START: JSON.stringify({ ethdev: height, ethtwo: height }),
    });
    let p: JsonRpcProvider;
    const height = () => p.getBlockNumber();

    beforeAll(async () => {
      anvil = await startAnvil();
      funder = new DevChainFunder(anvil.url);
      p = provider(anvil.url);
      ledgers = { ethdev: { rpcUrl: anvil.url, confirmations: 1 }, ethtwo: { family: 'ethereum', chainId: 31337, rpcUrl: anvil.url, confirmations: 1 } };
    }, 60_000);
    afterAll(async () => {
      for (const s of services) await s.stop();
      funder?.destroy();
      p?.destroy();
      await anvil?.stop();
    });

    async function service(depositLedgers: string): Promise<TestService> {
      const svc = await startTestService(ledgers, { pipeline: true, workers: true, env: env(depositLedgers, await height()) });
      services.push(svc);
      return svc;
    }
    it('a list: a schedule, a scanner and a /status entry for the ledgers listed only', async () => {
      const svc = await service('ethtwo');
      const off = await registerVault(svc, 'off-vault', 'ethdev', 3);
      const on = await registerVault(svc, 'on-vault', 'ethtwo', 4);
      await funder.sendEth(off, 5n);
      await funder.sendEth(on, 7n);
      const found = await until(
        'the deposit on the scanned ledger',
        async () => (await svc.call('GET', '/api/v1.0/vaults/on-vault/deposits', { key: READ_KEY })).body.items?.[0],
        30_000,
      );
      expect(found).toMatchObject({ ledgerId: 'ethtwo', baseUnits: '7' });
      const deposits = svc.pipeline!.deposits;
      expect(deposits.ledgers).toEqual(['ethtwo']);
      expect((await svc.call('GET', '/api/v1.0/vaults/off-vault/deposits', { key: READ_KEY })).body.items).toEqual([]);
      expect(await deposits.store.cursor('ethdev')).toBeUndefined();
      expect((await deposits.queue.getJobSchedulers()).map((s) => s.key)).toEqual([scanSchedulerId('ethtwo')]);
      const status = await svc.call('GET', '/api/v1.0/status');
      expect(Object.keys(status.body.dependencies).filter((k) => k.startsWith('deposits:'))).toEqual(['deposits:ethtwo']);
      // The scan job carries the name of the process that took it.
      const jobs = await deposits.queue.getJobs(['completed']);
      expect(jobs.some((j) => j.processedBy?.endsWith(`:${process.pid}`))).toBe(true);
    });

    it('none: no schedule, no consumer of scan jobs, no /status entry; the other workers run', async () => {
      const svc = await service('none');
      const deposits = svc.pipeline!.deposits;
      expect(deposits.ledgers).toEqual([]);
      expect(await deposits.queue.getJobSchedulers()).toEqual([]);
      expect(await deposits.queue.getWorkers()).toEqual([]);
      // The webhook deliveries of this process do run: only scanning is off.
      await until('the webhook worker', async () => (await svc.pipeline!.webhooks.queue.getWorkers()).length > 0, 10_000);
      expect(svc.workers!.running()).toBe(true);
      const status = await svc.call('GET', '/api/v1.0/status');
      expect(Object.keys(status.body.dependencies).filter((k) => k.startsWith('deposits:'))).toEqual([]);
    });
  });
});
