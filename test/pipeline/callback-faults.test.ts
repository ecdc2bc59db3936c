import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DirectFaults as Faults } from '../../src/dev/custody-emulator/index.js';
import type { TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { type BroadcastCounter, type EthLoop, postCallback, RECIPIENT, signedCallbackBody, startEthLoop, until, withdraw } from './support.js';
import { SECP256K1_N as N } from '../../src/ledger/signatures.js';

/**
 * A custody service that misbehaves the ways real ones do (duplicates, legacy v, high S,
 * partial sets, late callbacks, resends, damaged content), over the real HTTP callback.
 * Each case runs on a fresh vault, so its nonce count is its own.
 */
describe('custody callback faults: one broadcast per withdrawal, whatever the custody sends', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let ctx: EthLoop;

  beforeAll(async () => {
    ctx = await startEthLoop();
    ({ chain, loop, p, counter } = ctx);
  });
  afterAll(() => ctx?.stop());

  /** A funded vault with `faults`, one withdrawal from it; returns what the test needs. */
  async function withFaults(faults: Faults) {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    loop.custody.control.setFaults(faults, v.vaultId);
    const callsBefore = counter.calls;
    const res = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.001', description: JSON.stringify(faults) });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.status).toBe('EXECUTING');
    const operationID = res.body.operationID as string;
    return { v, operationID, callsBefore };
  }

  /** CONFIRMED, one broadcast call, one transaction on chain from the vault. */
  async function confirmedOnce(c: Awaited<ReturnType<typeof withFaults>>) {
    const done = await loop.waitFor(c.v.vaultId, c.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED');
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect(done.history.map((h: { status: string }) => h.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']);
    expect(counter.calls - c.callsBefore).toBe(1);
    expect(await p.getTransactionCount(c.v.address, 'latest')).toBe(1);
    const tx = await p.getTransaction(done.txids[0]);
    expect(tx?.from).toBe(c.v.address);
    return { done, tx: tx! };
  }

  /** The custody emulator finished `n` deliveries of the operation's callback. */
  const deliveries = (operationID: string, n: number) =>
    until(`${n} deliveries of ${operationID}`, () => {
      const d = loop.custody.control.operation(operationID)?.deliveries;
      return d && d.length >= n ? d : undefined;
    });

  it('10 concurrent duplicate callbacks: all answered 200, one broadcast', async () => {
    const c = await withFaults({ duplicate: 10 });
    await confirmedOnce(c);
    expect(await deliveries(c.operationID, 1)).toEqual([{ delivered: 10, failed: 0, dropped: false }]);
  });

  it('10 concurrent copies posted at once: exactly one answered queued, the rest duplicate, one broadcast', async () => {
    const c = await withFaults({ dropCallback: true });
    await deliveries(c.operationID, 1);
    const body = signedCallbackBody(loop, c.operationID);
    const answers = await Promise.all(Array.from({ length: 10 }, () => postCallback(loop.svc, 'ethdev', body)));
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200));
    const outcomes = answers.map((a) => a.body.outcome as string).sort();
    expect(outcomes).toEqual(['duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'duplicate', 'queued']);
    await confirmedOnce(c);
    // And late copies after CONFIRMED are answered as duplicates.
    const late = await Promise.all(Array.from({ length: 3 }, () => postCallback(loop.svc, 'ethdev', body)));
    expect(late.map((a) => [a.status, a.body.outcome])).toEqual(late.map(() => [200, 'duplicate']));
    expect(counter.calls - c.callsBefore).toBe(1);
  });

  it('v as legacy 27/28 (swapped meaning) is accepted by recovery', async () => {
    const c = await withFaults({ legacyV: true });
    await deliveries(c.operationID, 1);
    expect([27, 28]).toContain(loop.custody.control.operation(c.operationID)!.v[0]);
    await confirmedOnce(c);
  });

  it('high-S signatures are normalised to low S and the right recovery id', async () => {
    const c = await withFaults({ highS: true });
    await deliveries(c.operationID, 1);
    const sent = loop.custody.control.operation(c.operationID)!.signatures[0]!;
    expect(BigInt(`0x${sent.slice(64)}`) > N / 2n).toBe(true);
    const { tx } = await confirmedOnce(c);
    expect(BigInt(tx.signature.s) <= N / 2n).toBe(true);
  });

  it('high-S and legacy v together', async () => {
    const c = await withFaults({ highS: true, legacyV: true });
    await confirmedOnce(c);
  });

  it('a partial set (originalEntryIds) completes, also when each part is duplicated', async () => {
    const c = await withFaults({ partial: true, duplicate: 3 });
    await confirmedOnce(c);
    const d = await deliveries(c.operationID, 1);
    expect(d[0]).toMatchObject({ failed: 0, dropped: false });
  });

  it('a late callback (delayMs) still completes once', async () => {
    const c = await withFaults({ delayMs: 700 });
    const { done } = await confirmedOnce(c);
    // The signatures arrived no earlier than the delay after the sign request.
    const [executing, signed] = done.history as { at: string }[];
    expect(Date.parse(signed!.at) - Date.parse(executing!.at)).toBeGreaterThanOrEqual(700);
  });

  it('a resend through the custody resend route is answered 200 with no second broadcast', async () => {
    const c = await withFaults({});
    await confirmedOnce(c);
    await deliveries(c.operationID, 1);
    const res = await fetch(`${loop.custody.url}/operations/sign/${c.operationID}/resend`, { method: 'POST' });
    expect(res.status).toBe(200);
    const d = await deliveries(c.operationID, 2);
    expect(d[1]).toEqual({ delivered: 1, failed: 0, dropped: false });
    const manual = await postCallback(loop.svc, 'ethdev', signedCallbackBody(loop, c.operationID));
    expect(manual.body).toEqual({ accepted: true, outcome: 'duplicate', withdrawalId: expect.any(String), operationID: c.operationID });
    expect(counter.calls - c.callsBefore).toBe(1);
    expect(await p.getTransactionCount(c.v.address, 'latest')).toBe(1);
  });

  for (const faults of [{ corruptSignature: 0 }, { swapKey: true }] as Faults[]) {
    it(`a custody sending ${JSON.stringify(faults)} is refused every time; nothing is broadcast`, async () => {
      const c = await withFaults(faults);
      const d = await deliveries(c.operationID, 1);
      // The custody emulator tried (3 attempts) and never got a 2xx.
      expect(d).toEqual([{ delivered: 0, failed: 1, dropped: false }]);
      const op = await loop.waitFor(c.v.vaultId, c.operationID, () => true);
      expect(op.status).toBe('EXECUTING');
      expect(counter.calls - c.callsBefore).toBe(0);
      expect(await p.getTransactionCount(c.v.address, 'latest')).toBe(0);
    });
  }
});
