import { Account, MuxedAccount } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/platform/errors.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { testRedis } from '../../test/helpers/redis.js';
import { startStellarLedger, type LocalStellarLedger } from './local-node/index.js';
import { stellarAdaptor, testKey, vaultOf } from './test-kit.js';

/** SEP-29: an account that needs a memo on incoming payments has the data entry `config.memo_required` = "1". */
describe('SEP-29: payments to an account that requires a memo', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger;
  let adaptor: LedgerAdaptor;
  const vault = testKey();
  const exchange = testKey();
  let refs = 0;

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    adaptor = stellarAdaptor(redis, prefix, { horizonUrl: ledger.url });
    await ledger.fund(vault.address, '100');
    await ledger.fund(exchange.address, '10');
    await ledger.manageData(exchange.keypair, 'config.memo_required', '1');
  });
  afterAll(async () => {
    await ledger.stop();
    redis.disconnect();
  });

  const pay = async (recipientAddress: string, memo?: string) => {
    const reference = `sep29-${++refs}`;
    const unsigned = await adaptor.craft(vaultOf(vault), {
      reference,
      recipientAddress,
      asset: adaptor.nativeAsset,
      amount: 50_000_000n,
      fee: 'MEDIUM',
      ...(memo ? { memo } : {}),
    });
    await adaptor.release(unsigned, reference);
    return 'crafted';
  };

  it('a memo-less payment is refused (422, field memo, naming SEP-29); with a memo, to a muxed M… address or once the entry is gone it is crafted', async () => {
    const err = await pay(exchange.address).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).fields).toEqual({ field: 'memo' });
    expect((err as InvalidArgumentError).details).toMatch(new RegExp(`${exchange.address} requires a memo.*SEP-29`));

    expect(await pay(exchange.address, 'id:104729')).toBe('crafted');
    expect(await pay(`${exchange.address}?memo=id%3A104729`)).toBe('crafted');
    expect(await pay(new MuxedAccount(new Account(exchange.address, '0'), '104729').accountId())).toBe('crafted');
    await ledger.manageData(exchange.keypair, 'config.memo_required', null);
    expect(await pay(exchange.address)).toBe('crafted');
  });
});
