import { Keypair } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startStellarLedger, type LocalStellarLedger } from '../../adaptors/stellar/local-node/index.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { startTestService, WITHDRAW_KEY, type TestService } from '../helpers/service.js';
import { signedCallbackBody, until } from './support.js';

/**
 * The callback as the real custody service sends it: no HMAC headers, and for EdDSA a `v`
 * that is empty or absent. Without CALLBACK_SECRET the receiver needs no HMAC; content
 * verification still decides, and an allow-list, when set, still refuses other callers.
 */
describe('callbacks without HMAC (no CALLBACK_SECRET), EdDSA without v', () => {
  let ledger: LocalStellarLedger;
  let loop: Loop;
  let fenced: TestService;

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    const ledgers = { stellardev: { horizonUrl: ledger.url, networkPassphrase: ledger.passphrase } };
    loop = await startLoop(ledgers, { callbackSecret: null });
    // The same ledger behind an allow-list that does not include this host.
    fenced = await startTestService(ledgers, { pipeline: true, env: { CALLBACK_SECRET: '', CALLBACK_ALLOWED_IPS: '10.255.255.1' } });
  });
  afterAll(async () => {
    await fenced?.stop();
    await loop?.stop();
    await ledger?.stop();
  });

  const withdraw = (vaultId: string, description: string) =>
    loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: Keypair.random().publicKey(), amount: '5', description },
    });

  for (const edV of ['empty', 'absent'] as const) {
    it(`a callback with v ${edV} and no HMAC headers completes the withdrawal`, async () => {
      const v = await loop.vault('stellardev');
      await ledger.fund(v.address, '100');
      loop.custody.control.setFaults({ edV }, v.vaultId);
      const res = await withdraw(v.vaultId, `v ${edV}`);
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
      expect(done.status, done.failureReason).toBe('CONFIRMED');
      // Delivered by the callback itself, at the first try.
      const delivery = await until('the delivery record', () => loop.custody.control.operation(res.body.operationID)?.deliveries[0]);
      expect(delivery).toEqual({ delivered: 1, failed: 0, dropped: false });
    });
  }

  it('content verification still refuses a forged signature without HMAC', async () => {
    const v = await loop.vault('stellardev');
    await ledger.fund(v.address, '100');
    loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const res = await withdraw(v.vaultId, 'forged');
    await until('the quorum to sign', () => loop.custody.control.operation(res.body.operationID)?.status === 'COMPLETED');
    const body = signedCallbackBody(loop, res.body.operationID);
    const sig = body.signatures[0]!;
    const forged = { ...body, v: [], signatures: [sig.slice(0, -2) + (parseInt(sig.slice(-2), 16) ^ 1).toString(16).padStart(2, '0')] };
    const r = await loop.svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=stellardev', { body: forged });
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ errCode: 'ERR_VERIFICATION_FAILED', reason: 'bad-signature' });
    // The genuine one, without v and without HMAC, is accepted.
    const { v: _v, ...withoutV } = body;
    const ok = await loop.svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=stellardev', { body: withoutV });
    expect(ok.status, JSON.stringify(ok.body)).toBe(200);
    expect(ok.body.outcome).toBe('queued');
    await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED', 30_000);
  });

  it('with an allow-list set, a caller not on it is refused before the body is read (403)', async () => {
    const r = await fenced.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=stellardev', { body: { hello: 'world' } });
    expect(r.status).toBe(403);
    expect(r.body.errCode).toBe('ERR_FORBIDDEN');
  });
}, 120_000);
