import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { freePort } from '../../src/dev/free-port.js';
import { checkCallback } from '../../src/security/callback-hmac.js';
import { sendWebhook } from '../../src/webhooks/send-webhook.js';
import { until } from '../pipeline/support.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';
import { fakeOperation, startReceiver, type Received } from './support.js';

/** Short retry schedule: 50 ms doubling to 200 ms, for 3 s (production: at least 24 h). */
const SCHEDULE = { WEBHOOK_BACKOFF_MS: '50', WEBHOOK_BACKOFF_MAX_MS: '200', WEBHOOK_RETRY_SECONDS: '3', WEBHOOK_TIMEOUT_MS: '1000' };

const verified = (r: Received, secret: string) =>
  checkCallback(secret, Buffer.from(r.raw), r.headers['x-webhook-timestamp'] as string, r.headers['x-webhook-signature'] as string, 300) === undefined;

/** Moves an operation through its whole life (five events). */
async function lifeOf(store: OperationStore, vaultId = 'vault-a') {
  const op = fakeOperation({ vaultId });
  await store.create(op);
  await store.linkCustodyId(op, `custody-${op.id}`);
  await store.transition(op.id, ['EXECUTING'], 'SIGNED', () => ({ txids: ['0x01'] }));
  await store.transition(op.id, ['SIGNED'], 'BROADCAST');
  await store.transition(op.id, ['BROADCAST'], 'CONFIRMED');
  return op;
}

describe('webhook deliveries to a real receiver', () => {
  let svc: TestService;
  let store: OperationStore;
  const admin = (method: string, path: string, body?: unknown) => svc.call(method, `/api/v1.0/admin/webhooks${path}`, { key: ADMIN_KEY, body });

  beforeAll(async () => {
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } },
      { pipeline: true, workers: true, env: { ...SCHEDULE, WEBHOOK_ALLOW_PRIVATE: 'true' } },
    );
    store = svc.pipeline!.deps.store;
  });
  afterAll(() => svc.stop());

  it('survives a receiver that fails, then times out, then recovers: every event arrives, in order, signed', async () => {
    const receiver = await startReceiver([500, 500, 500, 'hang', 'hang']);
    const created = await admin('POST', '', { url: receiver.url, events: ['*'], description: 'integrator' });
    expect(created.status).toBe(201);
    const secret = created.body.secret as string;
    expect(secret).toMatch(/^whsec_/);
    const a = await lifeOf(store);
    const b = await lifeOf(store, 'vault-b');

    const accepted = () => receiver.received.filter((r) => r.answer === 200);
    await until('ten events accepted', () => new Set(accepted().map((r) => r.body.id)).size === 10, 30_000);
    expect(receiver.received.slice(0, 5).map((r) => r.answer)).toEqual([500, 500, 500, 'hang', 'hang']);
    expect(receiver.received.every((r) => verified(r, secret))).toBe(true);
    expect(receiver.received.every((r) => r.headers['x-webhook-id'] === r.body.id)).toBe(true);

    for (const op of [a, b]) {
      const mine = receiver.received.filter((r) => r.body.withdrawalId === op.id);
      // Deduplicated by event id, the accepted events are the withdrawal's life in order.
      const firstAccepted = [...new Map(mine.filter((r) => r.answer === 200).map((r) => [r.body.id, r] as const)).values()];
      expect(firstAccepted.map((r) => r.body.sequence)).toEqual([1, 2, 3, 4, 5]);
      expect(firstAccepted.map((r) => r.body.type)).toEqual([
        'withdrawal.created',
        'withdrawal.sign_requested',
        'withdrawal.signed',
        'withdrawal.broadcast',
        'withdrawal.confirmed',
      ]);
      expect(firstAccepted[4]!.body.withdrawal).toMatchObject({ operationID: `custody-${op.id}`, status: 'CONFIRMED', isComplete: true, txids: ['0x01'] });
      // Never a later event before the earlier one was accepted.
      for (const r of mine) {
        const prev = mine.find((p) => p.body.sequence === r.body.sequence - 1 && p.answer === 200);
        if (r.body.sequence > 1) expect(prev && prev.at <= r.at).toBe(true);
      }
    }

    const deliveries = await admin('GET', `/${created.body.id}/deliveries?limit=200`);
    expect(deliveries.status).toBe(200);
    expect(deliveries.body.items).toHaveLength(10);
    expect(deliveries.body.items.every((d: { status: string }) => d.status === 'delivered')).toBe(true);
    // The two withdrawals' lines run side by side and shared the five bad answers between them.
    const items = deliveries.body.items as { id: string; attempts: number; lastResponseStatus: number }[];
    expect(items.reduce((n, d) => n + d.attempts, 0)).toBe(receiver.received.length);
    // Five bad answers and ten good ones (more only if a good answer came later than the timeout).
    expect(receiver.received.length).toBeGreaterThanOrEqual(15);
    const first = items.find((d) => d.attempts > 1)!;
    expect(first.lastResponseStatus).toBe(200);
    // The dashboard shows the same deliveries as jobs of the webhooks queue.
    const queue = await svc.call('GET', '/admin/queues/api/queues?activeQueue=webhooks&status=completed', { key: ADMIN_KEY });
    const jobs = (queue.body.queues as { name: string; jobs: { id: string }[] }[]).find((q) => q.name === 'webhooks')!.jobs;
    expect(jobs.map((j) => j.id)).toContain(first.id);
    await admin('DELETE', `/${created.body.id}`);
    await receiver.close();
  });

  it("a delivery that keeps failing ends failed, holds back its withdrawal's later events, and is sent again on request", async () => {
    const receiver = await startReceiver([], 503);
    const created = await admin('POST', '', { url: receiver.url, events: ['withdrawal.created', 'withdrawal.failed'] });
    const sub = created.body.id as string;
    const op = fakeOperation();
    await store.create(op);
    await store.transition(op.id, ['EXECUTING'], 'FAILED', () => ({ failureReason: 'declined' }), 'declined');

    const list = async () =>
      (await admin('GET', `/${sub}/deliveries`)).body.items as {
        id: string;
        type: string;
        status: string;
        attempts: number;
        lastResponseStatus?: number;
        lastError?: string;
      }[];
    const failed = await until(
      'the first delivery failed',
      async () => (await list()).find((d) => d.type === 'withdrawal.created' && d.status === 'failed'),
      20_000,
    );
    expect(failed.attempts).toBeGreaterThan(3);
    expect(failed).toMatchObject({ lastResponseStatus: 503, lastError: 'the receiver answered 503' });
    expect((await list()).find((d) => d.type === 'withdrawal.failed')?.status).toBe('queued');
    expect(receiver.received.every((r) => r.body.type === 'withdrawal.created')).toBe(true);
    expect((await admin('GET', `/${sub}/deliveries?status=failed`)).body.items.map((d: { id: string }) => d.id)).toEqual([failed.id]);

    const notFailed = (await list()).find((d) => d.type === 'withdrawal.failed')!;
    expect((await admin('POST', `/${sub}/deliveries/${notFailed.id}/retry`)).status).toBe(409);
    expect((await svc.call('POST', `/api/v1.0/admin/webhooks/${sub}/deliveries/${failed.id}/retry`, { key: READ_KEY })).status).toBe(403);

    receiver.setThen(200);
    const retried = await admin('POST', `/${sub}/deliveries/${failed.id}/retry`);
    expect(retried.status).toBe(202);
    await until('both delivered', async () => (await list()).every((d) => d.status === 'delivered'), 20_000);
    const ok = receiver.received.filter((r) => r.answer === 200).map((r) => r.body.type);
    expect(ok).toEqual(['withdrawal.created', 'withdrawal.failed']);
    await receiver.close();
  });

  it('sends a signed test event on request, only to events the subscription wants', async () => {
    const receiver = await startReceiver();
    const created = await admin('POST', '', { url: receiver.url, events: ['withdrawal.confirmed'], secret: 'my-own-secret-0123456789' });
    expect(created.body.secret).toBe('my-own-secret-0123456789');
    const listed = await admin('GET', '');
    expect(listed.body.items.find((s: { id: string }) => s.id === created.body.id)).toEqual({
      id: created.body.id,
      url: receiver.url,
      events: ['withdrawal.confirmed'],
      createdAt: created.body.createdAt,
    });
    expect(JSON.stringify(listed.body)).not.toContain('secret');
    const test = await admin('POST', `/${created.body.id}/test`);
    expect(test.status).toBe(202);
    await until('test event', () => receiver.received.find((r) => r.body.type === 'webhook.test'));
    const op = await lifeOf(store);
    await until('confirmed event', () => receiver.received.find((r) => r.body.withdrawalId === op.id));
    // Every event of the withdrawal has been dispatched (the outbox is empty) and every delivery
    // the subscription got has been made: any other event sent to it would be in by now.
    await until('every event dispatched and delivered', async () => {
      if ((await svc.core.redis.xlen(store.outboxKey)) > 0) return false;
      const deliveries = (await admin('GET', `/${created.body.id}/deliveries?limit=200`)).body.items as { status: string }[];
      return deliveries.every((d) => d.status === 'delivered');
    });
    expect(receiver.received.map((r) => r.body.type)).toEqual(['webhook.test', 'withdrawal.confirmed']);
    expect(receiver.received.every((r) => verified(r, 'my-own-secret-0123456789'))).toBe(true);
    expect(verified({ ...receiver.received[0]!, raw: receiver.received[0]!.raw.replace('webhook.test', 'webhook.tesT') }, 'my-own-secret-0123456789')).toBe(
      false,
    );

    // The receiver's verification docs/webhooks.md gives, run as written.
    const readme = readFileSync(new URL('../../docs/webhooks.md', import.meta.url), 'utf8');
    const snippet = /```js\n(import \{ createHmac[\s\S]*?)```/.exec(readme)?.[1];
    expect(snippet).toContain('export function verifyWebhook');
    const file = join(mkdtempSync(join(tmpdir(), 'readme-')), 'verify.mjs');
    writeFileSync(file, snippet!);
    const { verifyWebhook } = (await import(pathToFileURL(file).href)) as { verifyWebhook: (s: string, b: Buffer, h: Received['headers']) => boolean };
    const first = receiver.received[0]!;
    expect(verifyWebhook('my-own-secret-0123456789', Buffer.from(first.raw), first.headers)).toBe(true);
    expect(verifyWebhook('another-secret-0123456789', Buffer.from(first.raw), first.headers)).toBe(false);
    expect(verifyWebhook('my-own-secret-0123456789', Buffer.from(`${first.raw} `), first.headers)).toBe(false);

    expect((await admin('DELETE', `/${created.body.id}`)).status).toBe(204);
    expect((await admin('DELETE', `/${created.body.id}`)).status).toBe(404);
    expect((await admin('POST', `/${created.body.id}/test`)).status).toBe(404);
    await receiver.close();
  });

  it('refuses to connect to a private address at delivery unless allowed, even behind a name', async () => {
    const receiver = await startReceiver();
    const url = receiver.url.replace('127.0.0.1', 'localhost');
    await expect(sendWebhook(url, '{}', { secret: 's', eventId: 'e', timeoutMs: 1000, allowPrivate: false })).rejects.toThrow(
      /localhost resolves to .*(127\.0\.0\.1|::1), a loopback address/,
    );
    await expect(sendWebhook(receiver.url, '{}', { secret: 's', eventId: 'e', timeoutMs: 1000, allowPrivate: false })).rejects.toThrow(
      /127\.0\.0\.1 is a loopback address/,
    );
    expect(receiver.received).toHaveLength(0);
    expect(await sendWebhook(receiver.url, '{}', { secret: 's', eventId: 'e', timeoutMs: 1000, allowPrivate: true })).toBe(200);
    await receiver.close();
  });
});
