import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CallbackBody } from '../../src/dev/custody-emulator/index.js';
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { countBroadcasts, postCallback, signedCallbackBody, until, withdraw, type BroadcastCounter } from './support.js';

const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';

/**
 * Partial signature sets (originalEntryIds) on a two-input Bitcoin withdrawal, posted by hand:
 * out of order, repeated, mixed with forged parts. Parts accumulate; only verified entries are
 * kept; the broadcast happens once, when the set is complete.
 */
describe('partial callbacks via originalEntryIds', () => {
  let regtest: BitcoinRegtest;
  let loop: Loop;
  let counter: BroadcastCounter;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    loop = await startLoop({ btcregtest: { backend: 'esplora', url: regtest.url, confirmations: 1 } });
    counter = countBroadcasts(loop.svc, 'btcregtest');
  });
  afterAll(async () => {
    await loop?.stop();
    await regtest?.stop();
  });

  it('parts in reverse order, repeated and forged: one broadcast of the complete, correct set', async () => {
    const v = await loop.vault('btcregtest');
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    await regtest.faucet(v.address, 30_000_000n);
    await regtest.faucet(v.address, 30_000_000n);
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.5', description: 'two inputs', fee: '5' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const operationID = res.body.operationID as string;
    await until('the custody to sign', () => loop.custody.control.operation(operationID)?.deliveries.length === 1);
    const full = signedCallbackBody(loop, operationID);
    expect(full.dataToSign).toHaveLength(2);
    const store = loop.svc.pipeline!.deps.store;
    const op = (await store.resolve(operationID))!;
    const stored = async () => [...(await store.signatures(op.id)).keys()].sort();
    const part = (ids: number[], over: Partial<CallbackBody> = {}): CallbackBody => ({
      publicKeys: ids.map((i) => full.publicKeys[i]!),
      providerData: full.providerData,
      dataToSign: ids.map((i) => full.dataToSign[i]!),
      signatures: ids.map((i) => full.signatures[i]!),
      v: ids.map((i) => full.v[i]!),
      originalEntryIds: ids,
      ...over,
    });
    const status = async () => (await loop.waitFor(v.vaultId, operationID, () => true)).status;

    // The second half first, twice: partial, then a duplicate of it; one entry stored, nothing queued.
    for (const outcome of ['partial', 'duplicate']) {
      const r = await postCallback(loop.svc, 'btcregtest', part([1]));
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      expect(r.body).toEqual({ accepted: true, outcome, withdrawalId: expect.any(String), operationID });
    }
    expect(await stored()).toEqual([1]);

    // Forged parts for the missing entry are refused and store nothing.
    const forged: [object, number, string][] = [
      // Entry 1's signature presented as entry 0.
      [part([0], { signatures: [full.signatures[1]!], v: [full.v[1]!] }), 400, 'bad-signature'],
      // Entry 0 labelled as entry 1 (its digest is not entry 1's).
      [part([0], { originalEntryIds: [1] }), 400, 'digest-mismatch'],
      // An id past the operation's entries.
      [part([0], { originalEntryIds: [2] }), 400, 'malformed'],
      // The same id twice.
      [part([0, 1], { originalEntryIds: [0, 0] }), 400, 'malformed'],
      // A damaged signature for entry 0, beside a genuine entry 1.
      [
        part([0, 1], { signatures: [full.signatures[0]!.replace(/^../, (h) => (parseInt(h, 16) ^ 1).toString(16).padStart(2, '0')), full.signatures[1]!] }),
        400,
        'bad-signature',
      ],
    ];
    for (const [body, code, reason] of forged) {
      const r = await postCallback(loop.svc, 'btcregtest', body);
      expect(r.status, JSON.stringify(body)).toBe(code);
      expect(r.body.reason, JSON.stringify(r.body)).toBe(reason);
    }
    expect(await stored()).toEqual([1]);
    expect(await status()).toBe('EXECUTING');
    expect(counter.calls).toBe(0);

    // The genuine first half completes the set: queued, then broadcast once.
    const last = await postCallback(loop.svc, 'btcregtest', part([0]));
    expect(last.body).toEqual({ accepted: true, outcome: 'queued', withdrawalId: expect.any(String), operationID });
    await until('the broadcast', () => counter.sent.length === 1);
    await regtest.mine(1);
    const done = await loop.waitFor(v.vaultId, operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    const tx = Transaction.fromHex(await (await fetch(`${regtest.url}/tx/${done.txids[0]}/hex`)).text());
    expect(tx.ins).toHaveLength(2);

    // Late parts and the whole set again: duplicates, no second broadcast.
    for (const body of [part([0]), part([1]), full]) {
      const r = await postCallback(loop.svc, 'btcregtest', body);
      expect(r.body.outcome).toBe('duplicate');
    }
    expect(counter.calls).toBe(1);
    expect(counter.sent).toEqual(done.txids);
  });

  it('the custody emulator sending halves (each duplicated) completes the withdrawal once', async () => {
    const before = counter.calls;
    const sentBefore = counter.sent.length;
    const v = await loop.vault('btcregtest');
    loop.custody.control.setFaults({ partial: true, duplicate: 3 }, v.vaultId);
    await regtest.faucet(v.address, 30_000_000n);
    await regtest.faucet(v.address, 30_000_000n);
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.5', description: 'halves', fee: '5' });
    // Mine only once the node has the transaction (the broadcast returned), or it misses the block.
    await until('the broadcast', () => counter.sent.length > sentBefore);
    await regtest.mine(1);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    const d = await until('the deliveries', () => loop.custody.control.operation(res.body.operationID)?.deliveries[0]);
    expect(d).toEqual({ delivered: 6, failed: 0, dropped: false });
    expect(counter.calls - before).toBe(1);
  });
});
