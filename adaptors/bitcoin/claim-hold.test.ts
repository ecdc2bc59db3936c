import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { minReservationMs } from '../../src/ledger/reservations.js';
import { reservationKeys } from '../../src/platform/redis-keys.js';
import { startBitcoinRegtest, type BitcoinRegtest } from './local-node/index.js';
import { newKey, regtestAdaptor, vaultOf } from './test-kit.js';

const BTC = { symbol: 'BTC', decimals: 8, native: true };
const HOUR = 3_600_000;

/**
 * Claimed coins expire by themselves (a crash between the claim and the stored withdrawal must
 * not hold them for good), but never before the withdrawal may still be signed: with a
 * SIGN_TIMEOUT_SECONDS of three days a claim of 24 h would let a later withdrawal take the
 * same coins while the first waits for its quorum, and one of the two would fail.
 */
describe('bitcoin coin claims last as long as a withdrawal may wait for its quorum', () => {
  let regtest: BitcoinRegtest;
  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
  });
  afterAll(async () => {
    await regtest?.stop();
  });

  async function claimTtlMs(minimum: number | undefined): Promise<number> {
    const k = regtestAdaptor(regtest.url, {}, minimum === undefined ? {} : { minReservationMs: minimum });
    try {
      const vault = vaultOf(k.adaptor, newKey(), 'p2wpkh');
      await regtest.faucet(vault.changeAddress, 100_000);
      const recipient = k.adaptor.addressFromPublicKey(newKey().publicKey, 'p2wpkh');
      const unsigned = await k.adaptor.craft(vault, { reference: `hold-${minimum}`, recipientAddress: recipient, asset: BTC, amount: 50_000n, fee: 'MEDIUM' });
      const [coin] = (unsigned.state as { reserved: string[] }).reserved;
      return await k.redis.pttl(reservationKeys(k.prefix).claim('btcregtest', coin!));
    } finally {
      k.close();
    }
  }

  it('three days of SIGN_TIMEOUT_SECONDS: the claim outlasts them by the hour for the broadcast', async () => {
    const ttl = await claimTtlMs(minReservationMs(3 * 24 * 3600));
    expect(ttl).toBeGreaterThan(3 * 24 * HOUR + HOUR - 60_000);
    expect(ttl).toBeLessThanOrEqual(3 * 24 * HOUR + HOUR);
  });

  it("a shorter sign timeout keeps the ledger's own reservationTtlMs (24 h)", async () => {
    const ttl = await claimTtlMs(minReservationMs(600));
    expect(ttl).toBeGreaterThan(24 * HOUR - 60_000);
    expect(ttl).toBeLessThanOrEqual(24 * HOUR);
  });
});
