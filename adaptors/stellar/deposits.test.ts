import { Asset, Memo, MuxedAccount, Account, Operation, TransactionBuilder, type Keypair } from '@stellar/stellar-sdk';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { testRedis } from '../../test/helpers/redis.js';
import { startStellarLedger, type CreditAsset, type LocalStellarLedger } from './local-node/index.js';
import { stellarAdaptor, testKey, type TestKey } from './test-kit.js';

/**
 * Deposits on the in-repo Horizon-compatible ledger: native and credit payments to a vault's
 * account found ledger by ledger through `/ledgers/{n}/payments?join=transactions`, with the
 * memo and a muxed destination's id kept; an asset the ledger is not configured with recorded
 * uncredited; the vault paying out is no deposit.
 */
describe('Stellar deposits on the local ledger', () => {
  let sim: LocalStellarLedger;
  let adaptor: LedgerAdaptor;
  let usd: CreditAsset;
  let eur: CreditAsset;
  const vault = testKey();
  const payer = testKey();
  const { redis, prefix } = testRedis();
  const store = new DepositStore(redis, prefix);
  const vaults = new VaultStore(redis, prefix);
  let scanner: LedgerScanner;
  const scan = () => scanner.pass({ maxBlocks: 1000, deadline: Date.now() + 60_000 });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));

  /** A payment signed by `from`, submitted; returns its hash. */
  const pay = (from: TestKey | Keypair, destination: string, asset: Asset, amount: string, memo?: Memo): string => {
    const kp = 'keypair' in from ? from.keypair : from;
    const entry = sim.account(kp.publicKey())!;
    const tx = new TransactionBuilder(new Account(kp.publicKey(), entry.sequence.toString()), {
      fee: '100',
      networkPassphrase: sim.passphrase,
      ...(memo ? { memo } : {}),
    })
      .addOperation(Operation.payment({ destination, asset, amount }))
      .setTimeout(60)
      .build();
    tx.sign(kp);
    const out = sim.submit(tx.toEnvelope().toXDR('base64'));
    if (out.kind !== 'applied') throw new Error(`payment not applied: ${out.kind}`);
    return tx.hash().toString('hex');
  };

  beforeAll(async () => {
    sim = await startStellarLedger({ closeIntervalMs: 0 });
    usd = await sim.createAsset('USD');
    eur = await sim.createAsset('EUR');
    adaptor = stellarAdaptor(redis, prefix, { horizonUrl: sim.url, networkPassphrase: sim.passphrase, assets: [{ code: 'USD', issuer: usd.issuer }] });
    await vaults.create({
      vaultId: 'xlm-vault',
      ledgerId: 'stellardev',
      kind: 'single',
      publicKey: Buffer.from(vault.publicKey.bytes).toString('hex'),
      createdAt: '',
    });
    const start = (await (await fetch(`${sim.url}/ledgers?order=desc&limit=1`)).json()) as { _embedded: { records: { sequence: number }[] } };
    scanner = new LedgerScanner(
      adaptor,
      adaptor.depositSource!,
      { store, vaults, logger: pino({ level: 'silent' }) },
      { window: 50, gapLimit: 20, refreshMs: 60_000, startAfter: start._embedded.records[0]!.sequence },
    );
  }, 60_000);
  afterAll(async () => {
    redis.disconnect();
    await sim?.stop();
  });

  it('finds the account created, a payment with a memo, one to a muxed address with its id, a credit asset and an unconfigured one', async () => {
    await sim.fund(vault.address, '100');
    await sim.fund(payer.address, '100');
    for (const asset of [usd, eur]) {
      await sim.changeTrust(vault.keypair, asset);
      await sim.changeTrust(payer.keypair, asset);
      await sim.issue(asset, payer.address, '50');
    }
    const memo = pay(payer, vault.address, Asset.native(), '12.5', Memo.text('invoice-42'));
    const muxed = new MuxedAccount(new Account(vault.address, '0'), '77').accountId();
    const toMuxed = pay(payer, muxed, Asset.native(), '1', Memo.id('9'));
    const credit = pay(payer, vault.address, new Asset('USD', usd.issuer), '3.25');
    const other = pay(payer, vault.address, new Asset('EUR', eur.issuer), '2');
    const out = pay(vault, payer.address, Asset.native(), '1');
    await scan();
    const seen = (await events()).filter((e) => e.type === 'deposit.detected').map((e) => e.deposit);
    expect(seen.map((d) => [d.index, d.asset, d.baseUnits, d.credited, d.memo, d.muxedId])).toEqual([
      ['op:0', 'XLM', '1000000000', true, undefined, undefined],
      ['op:0', 'XLM', '125000000', true, 'invoice-42', undefined],
      ['op:0', 'XLM', '10000000', true, '9', '77'],
      ['op:0', 'USD', '32500000', true, undefined, undefined],
      ['op:0', `EUR:${eur.issuer}`, '20000000', false, undefined, undefined],
    ]);
    expect(seen.map((d) => d.amount)).toEqual(['100', '12.5', '1', '3.25', '20000000']);
    expect(seen.slice(1).map((d) => d.txid)).toEqual([memo, toMuxed, credit, other]);
    expect(seen.map((d) => d.txid)).not.toContain(out);
    expect(seen[1]?.from).toEqual([payer.address]);
    expect(seen.every((d) => d.address === vault.address && d.vaultId === 'xlm-vault')).toBe(true);
  });
});
