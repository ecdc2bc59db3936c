import { randomUUID } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { testRedis } from '../helpers/redis.js';
import { dropPrefix, expectProblem, expectValidSignature, quorumVault, startHarness, startReceiver } from './harness.js';

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

const digest = () => randomUUID().replaceAll('-', '').repeat(2);
const signBody = (key: string, n = 1) => {
  const dataToSign = Array.from({ length: n }, digest);
  return { description: 'w', dataToSign, publicKeys: dataToSign.map(() => key), ledger: 'ETHTEST', providerData: 'p' };
};

async function waitStatus(h: Awaited<ReturnType<typeof startHarness>>, id: string, status: string, timeoutMs = 15_000) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const op = (await h.api('GET', `/operations/sign/${id}`)).json;
    if (op.status === status) return op;
    if (Date.now() > until) throw new Error(`operation ${id} is ${op.status}, expected ${status}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe('custody emulator state, automatic approvers and faults', () => {
  it('keeps users, tokens, vaults and operations across a restart, and resumes automatic approvals', async () => {
    const { redis, prefix } = testRedis();
    cleanup.push(() => dropPrefix(redis, prefix));
    const receiver = await startReceiver();
    cleanup.push(receiver.close);
    const first = await startHarness({ redis, prefix, callbackBaseUrl: receiver.url });
    const { vaultId, members } = await quorumVault(first);
    const key = (await first.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey;
    const pending = (await first.api('POST', `/vaults/${vaultId}/sign`, signBody(key))).json.operationID;
    await first.device('POST', `/participants/${members[0]!.id}/operations/${pending}/approve`);
    await first.stop();

    // The new process starts with a policy that approves by itself: the waiting operation finishes.
    const second = await startHarness({ redis, prefix, callbackBaseUrl: receiver.url, approverPolicy: { approve: 'quorum', delayMs: 10 } });
    cleanup.push(second.stop);
    expect((await second.api('GET', `/vaults/${vaultId}`, undefined, { token: first.token })).json).toMatchObject({ status: 'INITIALIZED', name: 'hot' });
    expect((await second.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey).toBe(key);
    const done = await waitStatus(second, pending, 'COMPLETED');
    expect(done.groups[0].members.filter((m: { status: string }) => m.status === 'DONE')).toHaveLength(2);
    const [cb] = await receiver.waitFor(1);
    expectValidSignature(key, cb!.body.dataToSign[0]!, cb!.body.signatures[0]!, cb!.body.v[0]!);
  });

  it('runs hands-free: participants activate and join, approvals come by themselves, decliners decline', async () => {
    const receiver = await startReceiver();
    const h = await startHarness({ callbackBaseUrl: receiver.url, approverPolicy: { autoActivate: true, autoJoin: true, approve: 'quorum', delayMs: 5 } });
    cleanup.push(receiver.close, () => dropPrefix(h.redis, h.prefix), h.stop);
    const account = (await h.api('POST', '/accounts', { name: 'auto' })).json;
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c']) {
      const p = (await h.api('POST', `/accounts/${account.id}/participants`, { name, email: `${name}@example.com`, role: 'bot' })).json;
      expect((await h.api('GET', `/participants/${p.id}`)).json.status).toBe('ACTIVATED');
      ids.push(p.id);
    }
    const vaultId = (
      await h.api('POST', `/accounts/${account.id}/vaults`, {
        name: 'v',
        cryptoKind: 'ECDSA',
        groups: [{ name: 'g', requiredApprovals: 2, members: ids.map((id) => ({ id })) }],
      })
    ).json.id;
    await h.running.emulator.settled();
    expect((await h.api('GET', `/vaults/${vaultId}`)).json.status).toBe('INITIALIZED');
    const key = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey;
    const ok = (await h.api('POST', `/vaults/${vaultId}/sign`, signBody(key))).json.operationID;
    await waitStatus(h, ok, 'COMPLETED');
    await receiver.waitFor(1);

    expect((await h.device('PUT', '/approver-policy', { approve: 'quorum', decliners: ['b'], delayMs: 5 })).json).toMatchObject({ decliners: ['b'] });
    const no = (await h.api('POST', `/vaults/${vaultId}/sign`, signBody(key))).json.operationID;
    const declined = await waitStatus(h, no, 'DECLINED');
    expect(declined.groups[0].members.find((m: { id: string }) => m.id === ids[1]).status).toBe('DECLINED');
    await h.running.emulator.settled();
    expect(receiver.received).toHaveLength(1);
  });

  it('merges a partial approver policy into the current one and answers the whole policy', async () => {
    const h = await startHarness({ approverPolicy: { autoActivate: true, autoJoin: true, approve: 'quorum', approvers: ['a'], delayMs: 7 } });
    cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
    const whole = { autoActivate: true, autoJoin: true, approve: 'none', approvers: ['a'], decliners: [], delayMs: 7 };
    expect((await h.device('PUT', '/approver-policy', { approve: 'none' })).json).toEqual(whole);
    expect((await h.device('GET', '/approver-policy')).json).toEqual(whole);
    expect((await h.device('PUT', '/approver-policy', { decliners: ['b'], approvers: null })).json).toEqual({
      ...whole,
      approvers: undefined,
      decliners: ['b'],
    });
    expect((await h.device('PUT', '/approver-policy', {})).json).toEqual({ autoActivate: true, autoJoin: true, approve: 'none', decliners: ['b'], delayMs: 7 });
    expectProblem(await h.device('PUT', '/approver-policy', { autoJoin: 'yes' }), 400);
    expectProblem(await h.device('PUT', '/approver-policy', { other: 1 }), 400);
  });

  it('injects faults: FAILED and ERROR endings, dropped then resent callbacks, partial halves, legacy v', async () => {
    const receiver = await startReceiver();
    const h = await startHarness({ callbackBaseUrl: receiver.url, approverPolicy: { approve: 'quorum', delayMs: 1 } });
    cleanup.push(receiver.close, () => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId } = await quorumVault(h);
    const key = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey;
    const run = async (faults: Record<string, unknown>, status: string, n = 1) => {
      expect((await h.device('PUT', '/faults', { vaultId, faults })).status).toBe(200);
      const id = (await h.api('POST', `/vaults/${vaultId}/sign`, signBody(key, n))).json.operationID;
      const op = await waitStatus(h, id, status);
      await h.running.emulator.settled();
      return op;
    };
    for (const endStatus of ['FAILED', 'ERROR']) {
      const op = await run({ endStatus }, endStatus);
      expect(op.signatures).toEqual([]);
    }
    expect(receiver.received).toHaveLength(0);

    const dropped = await run({ dropCallback: true }, 'COMPLETED');
    expect(receiver.received).toHaveLength(0);
    expect((await h.device('GET', `/operations/${dropped.operationID}`)).json.deliveries).toEqual({ delivered: 0, failed: 0, dropped: 1 });
    await h.device('PUT', '/faults', { vaultId, faults: {} });
    await h.api('POST', `/operations/sign/${dropped.operationID}/resend`);
    await receiver.waitFor(1);

    await run({ partial: true, legacyV: true }, 'COMPLETED', 3);
    const parts = await receiver.waitFor(3);
    expect(parts.slice(1).map((p) => p.body.originalEntryIds)).toEqual([[0, 1], [2]]);
    for (const p of parts.slice(1)) for (const v of p.body.v) expect([27, 28]).toContain(v);
    expectProblem(await h.device('PUT', '/faults', { faults: { endStatus: 'LOST' } }), 400);
  });

  it('signs the HMAC headers of the existing receiver when a callback secret is configured', async () => {
    const { checkCallback } = await import('../../src/security/callback-hmac.js');
    const receiver = await startReceiver();
    const h = await startHarness({ callbackBaseUrl: receiver.url, callbackSecret: 'shared-secret', approverPolicy: { approve: 'quorum', delayMs: 1 } });
    cleanup.push(receiver.close, () => dropPrefix(h.redis, h.prefix), h.stop);
    const { vaultId } = await quorumVault(h);
    const key = (await h.api('GET', `/vaults/${vaultId}/publickey`)).json.publicKey;
    await h.api('POST', `/vaults/${vaultId}/sign`, signBody(key));
    const [cb] = await receiver.waitFor(1);
    const raw = Buffer.from(JSON.stringify(cb!.body));
    expect(
      checkCallback('shared-secret', raw, cb!.headers['x-callback-timestamp'] as string, cb!.headers['x-callback-signature'] as string, 300),
    ).toBeUndefined();
    expect(cb!.headers['x-callback-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });
});
