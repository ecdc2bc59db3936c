import { Transaction } from 'bitcoinjs-lib';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { NodeRejectionError, UnavailableError } from '../../../src/platform/errors.js';
import type { BtcContext } from '../context.js';
import { BroadcastRejected, type BackendTxStatus, type BitcoinBackend } from '../network/backend.js';
import { broadcast } from './broadcast.js';

/** A transaction spending one coin of `PARENT`, as the withdrawal signed it. */
const PARENT = 'cd'.repeat(32);
const TX = (() => {
  const t = new Transaction();
  t.addInput(Buffer.from(PARENT, 'hex').reverse(), 1);
  t.addOutput(Buffer.from('0014' + '11'.repeat(20), 'hex'), 5_000n);
  return { txIndex: 0, txid: t.getId(), serialized: t.toHex() };
})();

/** A back end that refuses every send with `reason`, answers the txid lookup with `lookup` and the input's spender with `spender`. */
function refusing(reason: string, code: number, lookup: () => Promise<BackendTxStatus | undefined>, spender?: string): BtcContext {
  const backend: Partial<BitcoinBackend> = {
    broadcast: () => Promise.reject(new BroadcastRejected(reason, code)),
    txStatus: lookup,
    outspend: async (txid, vout) => (txid === PARENT && vout === 1 && spender ? { spent: true, txid: spender, confirmed: true } : { spent: false }),
  };
  return { ledgerId: 'btcregtest', backend, deps: { logger: pino({ level: 'silent' }) } } as unknown as BtcContext;
}

describe('broadcast: inputs missing or taken', () => {
  for (const [reason, code] of [
    ['bad-txns-inputs-missingorspent', -25],
    ['txn-mempool-conflict', -26],
  ] as const) {
    it(`counts "${reason}" as sent when the back end has the very transaction (mined, its outputs since spent)`, async () => {
      const ctx = refusing(reason, code, async () => ({ confirmed: true, blockHeight: 7 }));
      expect(await broadcast(ctx, TX)).toEqual({ txid: TX.txid, alreadyKnown: true });
    });
  }

  it('is a refusal that is not retried when the back end does not have it', async () => {
    const err = await broadcast(
      refusing('bad-txns-inputs-missingorspent', -25, async () => undefined),
      TX,
    ).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(err).toMatchObject({ kind: 'missing_inputs', retryable: false });
  });

  it('counts it as sent when the lookup lags (an instance that has not seen it) but its input names it as the spender', async () => {
    const ctx = refusing('bad-txns-inputs-missingorspent', -25, async () => undefined, TX.txid);
    expect(await broadcast(ctx, TX)).toEqual({ txid: TX.txid, alreadyKnown: true });
    const other = refusing('bad-txns-inputs-missingorspent', -25, async () => undefined, 'ef'.repeat(32));
    expect(await broadcast(other, TX).catch((e: unknown) => e)).toBeInstanceOf(NodeRejectionError);
  });

  it('decides nothing when the lookup fails: a retryable error, never a refusal', async () => {
    const ctx = refusing('bad-txns-inputs-missingorspent', -25, () => Promise.reject(new Error('HTTP 502')));
    const err = await broadcast(ctx, TX).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).toMatchObject({ retryable: true });
    expect((err as Error).message).toContain('bad-txns-inputs-missingorspent');
  });
});
