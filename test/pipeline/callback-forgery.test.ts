import { randomBytes } from 'node:crypto';
import type { JsonRpcProvider } from 'ethers';
import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { randomSigner } from '../../src/dev/custody-emulator/index.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { ADMIN_KEY, TEST_CALLBACK_SECRET } from '../helpers/service.js';
import { countBroadcasts, postCallback, provider, RECIPIENT, signedCallbackBody, until, withdraw, type BroadcastCounter } from './support.js';

type Body = ReturnType<typeof signedCallbackBody>;

/**
 * Forged and damaged callbacks against real operations: every one is refused with a 4xx in
 * the AppError shape, stores nothing and broadcasts nothing; the genuine callback still works.
 */
describe('forged signing callbacks are rejected, nothing is broadcast', () => {
  let chain: TestChain;
  let loop: Loop;
  let p: JsonRpcProvider;
  let counter: BroadcastCounter;
  let vault: { vaultId: string; address: string; publicKey: string };
  // Two real withdrawals of one vault whose callbacks the custody never sends.
  let a: { operationID: string; id: string; body: Body };
  let b: { operationID: string; id: string; body: Body };
  let startNonce: number;

  beforeAll(async () => {
    chain = await startTestChain();
    loop = await startLoop({
      ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 },
      // A second, valid ledger id on the same chain: the callback's ledgerId must still match.
      otherdev: { family: 'ethereum', chainId: 31337, rpcUrl: chain.anvil.url, confirmations: 1 },
    });
    p = provider(chain.anvil.url);
    counter = countBroadcasts(loop.svc, 'ethdev');
    vault = await loop.vault('ethdev');
    await chain.funder.sendEth(vault.address, 10n ** 18n);
    loop.custody.control.setFaults({ dropCallback: true }, vault.vaultId);
    startNonce = await p.getTransactionCount(vault.address, 'latest');
    const make = async (amount: string) => {
      const res = await withdraw(loop.svc, vault.vaultId, { recipientAddress: RECIPIENT, amount, description: `forgery target ${amount}` });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      const operationID = res.body.operationID as string;
      await until('the custody to sign', () => loop.custody.control.operation(operationID)?.deliveries.length === 1);
      const op = await loop.svc.pipeline!.deps.store.resolve(operationID);
      return { operationID, id: op!.id, body: signedCallbackBody(loop, operationID) };
    };
    a = await make('0.01');
    b = await make('0.02');
  });
  afterAll(async () => {
    p?.destroy();
    await loop?.stop();
    await chain?.stop();
  });

  const status = async (operationID: string) =>
    (await loop.svc.call('GET', `/api/v1.0/vaults/${vault.vaultId}/withdrawals/${operationID}`, { key: ADMIN_KEY })).body;
  const flipLastByte = (sig: string) => sig.slice(0, -2) + (parseInt(sig.slice(-2), 16) ^ 0x01).toString(16).padStart(2, '0');
  const stranger = randomSigner('ECDSA');

  const rejected = (
    name: string,
    expected: { status: number; errCode: string; reason?: string; details?: RegExp },
    send: () => Promise<{ status: number; body: any; headers: Headers }>,
  ) =>
    it(name, async () => {
      const res = await send();
      expect(res.status, JSON.stringify(res.body)).toBe(expected.status);
      expect(res.body).toMatchObject({
        errCode: expected.errCode,
        title: expect.any(String),
        details: expect.any(String),
        type: expect.stringMatching(/^\/api\/v1\.0\/errors\//),
      });
      if (expected.reason) expect(res.body.reason).toBe(expected.reason);
      if (expected.details) expect(res.body.details).toMatch(expected.details);
    });

  describe('content forgeries (valid HMAC)', () => {
    rejected('a damaged signature', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'bad-signature' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, signatures: [flipLastByte(a.body.signatures[0]!)] }),
    );
    rejected(
      'an r that is no curve point (the secp256k1 library throws on it)',
      { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'bad-signature' },
      () => {
        const sig = a.body.signatures[0]!;
        const hex32 = (n: bigint) => n.toString(16).padStart(64, '0');
        let r = BigInt(`0x${sig.slice(0, 64)}`);
        while (ecc.isXOnlyPoint(Buffer.from(hex32(r), 'hex'))) r -= 1n;
        return postCallback(loop.svc, 'ethdev', { ...a.body, signatures: [hex32(r) + sig.slice(64)] });
      },
    );
    rejected(
      'a signature of the right digest by another key, echoing the vault key',
      { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'bad-signature' },
      () => {
        const s = stranger.sign(Buffer.from(a.body.dataToSign[0]!, 'hex'));
        return postCallback(loop.svc, 'ethdev', { ...a.body, signatures: [s.signature], v: [s.v] });
      },
    );
    rejected('a swapped key: another key and its own valid signature', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'key-mismatch' }, () => {
      const s = stranger.sign(Buffer.from(a.body.dataToSign[0]!, 'hex'));
      return postCallback(loop.svc, 'ethdev', { ...a.body, publicKeys: [stranger.keyId], signatures: [s.signature], v: [s.v] });
    });
    rejected('a swapped key echoed beside the genuine signature', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'key-mismatch' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, publicKeys: [stranger.keyId] }),
    );
    rejected('an echoed key that is not a key', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'key-mismatch' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, publicKeys: ['04ABCDEF'] }),
    );
    rejected('an unknown operation (a digest nobody stored)', { status: 404, errCode: 'ERR_VERIFICATION_FAILED', reason: 'unknown-operation' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, dataToSign: [randomBytes(32).toString('hex')] }),
    );
    rejected('an altered digest (one bit of the stored one)', { status: 404, errCode: 'ERR_VERIFICATION_FAILED', reason: 'unknown-operation' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, dataToSign: [flipLastByte(a.body.dataToSign[0]!)] }),
    );
    rejected("another operation's digest with this operation's signature", { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'bad-signature' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, dataToSign: b.body.dataToSign }),
    );
    rejected('digests of two operations in one callback', { status: 404, errCode: 'ERR_VERIFICATION_FAILED', reason: 'unknown-operation' }, () =>
      postCallback(loop.svc, 'ethdev', {
        ...a.body,
        publicKeys: [...a.body.publicKeys, ...b.body.publicKeys],
        dataToSign: [...a.body.dataToSign, ...b.body.dataToSign],
        signatures: [...a.body.signatures, ...b.body.signatures],
        v: [...a.body.v, ...b.body.v],
      }),
    );
    rejected('a wrong ledgerId that exists', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'ledger-mismatch' }, () =>
      postCallback(loop.svc, 'otherdev', a.body),
    );
    rejected('a wrong ledgerId that does not exist', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'ledger-mismatch' }, () =>
      postCallback(loop.svc, 'btc', a.body),
    );
    rejected('signatures and v of different lengths', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'malformed' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, v: [0, 1] }),
    );
    rejected('an originalEntryId the operation does not have', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'malformed' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, originalEntryIds: [1] }),
    );
    rejected('a v outside 0/1/27/28', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'malformed-v' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, v: [2] }),
    );
    rejected('a signature of the wrong length', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'malformed-signature' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, signatures: [a.body.signatures[0]!.slice(2)] }),
    );
    rejected('s out of range', { status: 400, errCode: 'ERR_VERIFICATION_FAILED', reason: 'malformed-signature' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, signatures: [a.body.signatures[0]!.slice(0, 64) + 'F'.repeat(64)] }),
    );
    rejected('a body that is not the callback shape', { status: 422, errCode: 'ERR_INVALID_ARGUMENTS' }, () =>
      postCallback(loop.svc, 'ethdev', { ...a.body, dataToSign: ['not hex'] }),
    );
  });

  describe('authentication forgeries (the content is genuine)', () => {
    rejected('an HMAC made with another secret', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /bad-hmac/ }, () =>
      postCallback(loop.svc, 'ethdev', a.body, { secret: 'not-the-callback-secret-000000' }),
    );
    rejected('a body changed after it was signed (one space)', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /bad-hmac/ }, () => {
      const raw = JSON.stringify(a.body);
      const signedFor = signCallback(TEST_CALLBACK_SECRET, raw);
      return loop.svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=ethdev', { rawBody: `${raw} `, headers: signedFor });
    });
    rejected('a stale timestamp (older than the tolerance)', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /stale-timestamp/ }, () =>
      postCallback(loop.svc, 'ethdev', a.body, { nowMs: Date.now() - 301_000 }),
    );
    rejected('a timestamp from the future beyond the tolerance', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /stale-timestamp/ }, () =>
      postCallback(loop.svc, 'ethdev', a.body, { nowMs: Date.now() + 301_000 }),
    );
    // A genuine request captured on the wire 301 s ago: its body, timestamp and signature.
    const captured = () => {
      const raw = JSON.stringify(a.body);
      return { raw, headers: signCallback(TEST_CALLBACK_SECRET, raw, Date.now() - 301_000) };
    };
    const resend = (raw: string, headers: Record<string, string>) =>
      loop.svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=ethdev', { rawBody: raw, headers });
    rejected(
      'a captured request resent as it was, its timestamp past the tolerance',
      { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /stale-timestamp/ },
      () => {
        const { raw, headers } = captured();
        return resend(raw, headers);
      },
    );
    rejected("a captured request's signature re-stamped with the current time", { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /bad-hmac/ }, () => {
      const { raw, headers } = captured();
      return resend(raw, { ...headers, 'x-callback-timestamp': String(Math.floor(Date.now() / 1000)) });
    });
    rejected('a fresh signature re-stamped one second later, inside the tolerance', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /bad-hmac/ }, () => {
      const raw = JSON.stringify(a.body);
      const headers = signCallback(TEST_CALLBACK_SECRET, raw);
      return resend(raw, { ...headers, 'x-callback-timestamp': String(Number(headers['x-callback-timestamp']) + 1) });
    });
    rejected('no authentication headers', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /missing-headers/ }, () =>
      loop.svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=ethdev', { body: a.body }),
    );
    rejected('a signature header that is not hex', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /malformed-signature/ }, () =>
      postCallback(loop.svc, 'ethdev', a.body, { headers: { 'x-callback-signature': 'sha256=zz' } }),
    );
    rejected('the right HMAC without the documented sha256= prefix', { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /malformed-signature/ }, () => {
      const raw = JSON.stringify(a.body);
      const headers = signCallback(TEST_CALLBACK_SECRET, raw);
      headers['x-callback-signature'] = headers['x-callback-signature']!.replace(/^sha256=/, '');
      return loop.svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=ethdev', { rawBody: raw, headers });
    });
    rejected(
      'a malformed body without authentication: 401, not a description of the expected shape',
      { status: 401, errCode: 'ERR_UNAUTHORIZED', details: /missing-headers/ },
      () => loop.svc.call('POST', '/api/v1.0/sign_complete_callback', { body: { hello: 'world' } }),
    );
  });

  it('after all forgeries: nothing stored, nothing broadcast, both operations still EXECUTING', async () => {
    expect(counter.calls).toBe(0);
    expect(await p.getTransactionCount(vault.address, 'latest')).toBe(startNonce);
    for (const op of [a, b]) {
      expect((await status(op.operationID)).status).toBe('EXECUTING');
      expect((await loop.svc.pipeline!.deps.store.signatures(op.id)).size).toBe(0);
    }
    const jobs = await loop.svc.pipeline!.deps.queues.broadcast.getJobCounts();
    expect(Object.values(jobs).reduce((s, n) => s + n, 0)).toBe(0);
  });

  it('the genuine callbacks still complete both withdrawals, once each', async () => {
    const first = await postCallback(loop.svc, 'ethdev', a.body);
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body).toEqual({ accepted: true, outcome: 'queued', withdrawalId: a.id, operationID: a.operationID });
    // ledgerId is matched case-insensitively (sign requests carry it upper case).
    const second = await postCallback(loop.svc, 'ETHDEV', b.body);
    expect(second.body).toMatchObject({ accepted: true, outcome: 'queued', withdrawalId: b.id, operationID: b.operationID });
    const done = await Promise.all([a, b].map((o) => loop.waitFor(vault.vaultId, o.operationID, (s) => s.status === 'CONFIRMED')));
    const replay = await postCallback(loop.svc, 'ethdev', a.body);
    expect(replay.status).toBe(200);
    expect(replay.body.outcome).toBe('duplicate');
    expect(counter.calls).toBe(2);
    expect(counter.sent.sort()).toEqual(done.map((d) => d.txids[0]).sort());
    expect(await p.getTransactionCount(vault.address, 'latest')).toBe(startNonce + 2);
  });
});
