import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_KEY, startTestService, type TestService } from '../helpers/service.js';

const CALLBACK = '/api/v1.0/sign_complete_callback?ledgerId=ethdev';

/**
 * Sends the request line and headers of a request that announces `length` bytes of body and
 * sends none of them; resolves with the status line of the answer. A server that read (or
 * waited for) the body before answering would never answer: the test then times out.
 */
function headersOnly(url: string, method: string, path: string, length: number, headers: Record<string, string> = {}): Promise<string> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname, () => {
      const lines = Object.entries({ 'content-type': 'application/json', ...headers, 'content-length': String(length) }).map(([k, v]) => `${k}: ${v}\r\n`);
      socket.write(`${method} ${path} HTTP/1.1\r\nHost: localhost\r\n${lines.join('')}\r\n`);
    });
    let received = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      received += chunk;
      const end = received.indexOf('\r\n');
      if (end >= 0) {
        socket.destroy();
        resolve(received.slice(0, end));
      }
    });
    socket.on('error', reject);
  });
}

describe('a body is read only once its route is known and its caller admitted', () => {
  let svc: TestService;
  const FOUR_MB = 4 * 1024 * 1024;

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }, { pipeline: true, env: { CALLBACK_ALLOWED_IPS: '203.0.113.9' } });
  });
  afterAll(() => svc.stop());

  it('an unknown path answers 404 without the body', async () => {
    expect(await headersOnly(svc.url, 'POST', '/nope', FOUR_MB)).toMatch(/^HTTP\/1\.1 404/);
    expect(await headersOnly(svc.url, 'POST', '/api/v1.0/nope', FOUR_MB)).toMatch(/^HTTP\/1\.1 404/);
  });

  it('a route behind an API key answers 401 without the body, when the key is missing or wrong', async () => {
    expect(await headersOnly(svc.url, 'POST', '/api/v1.0/admin/vaults', FOUR_MB)).toMatch(/^HTTP\/1\.1 401/);
    const wrong = { authorization: 'Bearer not-a-key-of-this-service-0123456789abcdef' };
    expect(await headersOnly(svc.url, 'POST', '/api/v1.0/admin/vaults', FOUR_MB, wrong)).toMatch(/^HTTP\/1\.1 401/);
  });

  it('the signing callback answers 403 to a caller off CALLBACK_ALLOWED_IPS without the body, in both lanes', async () => {
    expect(await headersOnly(svc.url, 'POST', CALLBACK, 1000)).toMatch(/^HTTP\/1\.1 403/);
    expect(await headersOnly(svc.url, 'POST', CALLBACK, 1000, { 'content-encoding': 'gzip' })).toMatch(/^HTTP\/1\.1 403/);
  });

  it("an admitted caller is held to its route kind's limit: a key-holder to BODY_LIMIT", async () => {
    const res = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, rawBody: 'x'.repeat(FOUR_MB + 1) });
    expect([res.status, res.body.errCode]).toEqual([413, 'ERR_PAYLOAD_TOO_LARGE']);
  });
});

describe('the signing callback has its own body limit', () => {
  let svc: TestService;
  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: 'http://127.0.0.1:9' } }, { pipeline: true, env: { CALLBACK_BODY_LIMIT: '64kb' } });
  });
  afterAll(() => svc.stop());

  it('a body over CALLBACK_BODY_LIMIT answers 413 in both lanes, though it is within BODY_LIMIT', async () => {
    // Announced over the limit, the lean lane answers at once.
    expect(await headersOnly(svc.url, 'POST', CALLBACK, 65 * 1024)).toMatch(/^HTTP\/1\.1 413/);
    const text = JSON.stringify({ pad: 'x'.repeat(65 * 1024) });
    const express = await svc.call('POST', CALLBACK, { rawBody: gzipSync(text) as unknown as string, headers: { 'content-encoding': 'gzip' } });
    expect(express.status).toBe(413);
  });

  it('the default limit holds the largest Bitcoin callback: 5,000 inputs (maxInputs at most), keys in their longest form', async () => {
    const { ENV } = await import('../../src/config/env-spec.js');
    const { sizeInBytes } = await import('../../src/http/lean-lane.js');
    const n = 5000;
    const body = JSON.stringify({
      publicKeys: Array(n).fill(`3056301006072a8648ce3d020106052b8104000a034200${'04'}${'ab'.repeat(64)}`),
      providerData: 'x'.repeat(200),
      dataToSign: Array(n).fill('cd'.repeat(32)),
      signatures: Array(n).fill('ef'.repeat(64)),
      v: Array(n).fill(27),
      originalEntryIds: Array.from({ length: n }, (_, i) => i),
    });
    expect(Buffer.byteLength(body)).toBeLessThan(sizeInBytes(ENV.callbackBodyLimit.default));
  });
});
