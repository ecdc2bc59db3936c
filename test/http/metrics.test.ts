import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { freePort } from '../../src/dev/free-port.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { awaitingSignature, callbackBody } from '../helpers/one-signature.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';

const post = (svc: TestService, body: unknown, secret = TEST_CALLBACK_SECRET) => {
  const raw = JSON.stringify(body);
  return svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=ethdev', { rawBody: raw, headers: signCallback(secret, raw) });
};

const lines = (text: string, ...parts: string[]) => text.split('\n').filter((l) => parts.every((p) => l.includes(p)));

describe('GET /metrics (Prometheus)', () => {
  let svc: TestService;
  let other: TestService;

  beforeAll(async () => {
    const closed = await freePort();
    const ledgers = { ethdev: { rpcUrl: `http://127.0.0.1:${closed}` } };
    svc = await startTestService(ledgers, { pipeline: true });
    // A second app in the same process has its own registry: nothing leaks between them.
    other = await startTestService(ledgers, { pipeline: true });
  });
  afterAll(async () => {
    await svc?.stop();
    await other?.stop();
  });

  it('exposes the route latency histogram by route pattern and the callback counters by reason', async () => {
    expect((await svc.call('GET', '/api/v1.0/config')).status).toBe(200);
    expect((await svc.call('GET', '/api/v1.0/vaults/some-vault-id/balance')).status).toBe(401);
    expect((await svc.call('GET', '/no/such/route')).status).toBe(404);

    const good = randomBytes(32);
    await new OperationStore(svc.core.redis, svc.core.prefix).create(awaitingSignature(good.toString('hex'), 'metrics'));
    expect((await post(svc, callbackBody(good), 'not-the-secret-0123456789')).status).toBe(401);
    expect((await post(svc, callbackBody(randomBytes(32)))).status).toBe(404);
    const accepted = await post(svc, callbackBody(good));
    expect(accepted.status).toBe(200);
    expect(accepted.body.outcome).toBe('queued');

    const res = await svc.call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    const text = res.body as string;
    expect(text).toContain('# TYPE byow_http_request_duration_seconds histogram');
    expect(lines(text, 'byow_http_request_duration_seconds_count', 'route="/api/v1.0/config"', 'status="200"', 'method="GET"')[0]).toMatch(/ 1$/);
    expect(lines(text, 'byow_http_request_duration_seconds_count', 'route="/api/v1.0/vaults/:vaultId/balance"', 'status="401"')[0]).toMatch(/ 1$/);
    expect(lines(text, 'byow_http_request_duration_seconds_count', 'route="unmatched"', 'status="404"')).toHaveLength(1);
    expect(lines(text, 'byow_http_request_duration_seconds_count', 'route="/api/v1.0/sign_complete_callback"', 'status="200"')[0]).toMatch(/ 1$/);
    expect(text).not.toContain('some-vault-id');
    expect(text).not.toContain('/no/such/route');

    expect(lines(text, 'byow_callbacks_accepted_total{outcome="queued"}')[0]).toMatch(/ 1$/);
    expect(lines(text, 'byow_callbacks_rejected_total{reason="ERR_UNAUTHORIZED"}')[0]).toMatch(/ 1$/);
    expect(lines(text, 'byow_callbacks_rejected_total{reason="unknown-operation"}')[0]).toMatch(/ 1$/);
    expect(lines(text, 'byow_queue_jobs', 'queue="broadcast"', 'state="waiting"')[0]).toMatch(/ 1$/);
    expect(text).toContain('# TYPE byow_job_duration_seconds histogram');
    expect(text).toContain('# TYPE byow_broadcasts_total counter');
    expect(text).toContain('# TYPE byow_reservation_conflicts_total counter');

    const second = (await other.call('GET', '/metrics')).body as string;
    expect(lines(second, 'byow_callbacks_accepted_total{')).toHaveLength(0);
    expect(lines(second, 'route="/api/v1.0/config"')).toHaveLength(0);
  });
});
