import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationStore } from '../../src/pipeline/operation-store.js';
import { freePort } from '../../src/sandbox/free-port.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { sizeInBytes } from '../../src/http/lean-lane.js';
import { awaitingSignature, callbackBody } from '../helpers/one-signature.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';

const PATH = '/api/v1.0/sign_complete_callback?ledgerId=ethdev';

/**
 * The signing callback is answered ahead of Express when it is plain JSON, and by Express when
 * it is not (here: gzip, which only Express's body parser inflates). Both lanes must answer
 * every request alike. Express's `res.json` adds an ETag, the lean lane does not: that tells
 * which lane answered.
 */
describe('the lean lane of the signing callback', () => {
  let svc: TestService;

  beforeAll(async () => {
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true, env: { BODY_LIMIT: '4kb' } });
  });
  afterAll(() => svc?.stop());

  async function send(text: string, lane: 'lean' | 'express') {
    const headers: Record<string, string> = { ...signCallback(TEST_CALLBACK_SECRET, text), 'content-type': 'application/json' };
    if (lane === 'express') headers['content-encoding'] = 'gzip';
    const res = await fetch(`${svc.url}${PATH}`, { method: 'POST', headers, body: lane === 'express' ? gzipSync(text) : text });
    const body = (await res.json()) as Record<string, unknown>;
    return { status: res.status, body, etag: res.headers.get('etag'), type: res.headers.get('content-type'), requestId: res.headers.get('x-request-id') };
  }

  it('answers refusals in both lanes alike, in the AppError shape', async () => {
    const unknown = JSON.stringify(callbackBody(randomBytes(32)));
    const cases: [string, string][] = [
      ['malformed JSON', '{"publicKeys": ['],
      ['a number, not an object (strict JSON)', '5'],
      ['a string', '"x"'],
      ['an empty body', ''],
      ['a schema violation', JSON.stringify({ publicKeys: 'x' })],
      ['an operation nobody stored', unknown],
      ['over BODY_LIMIT', JSON.stringify({ pad: 'x'.repeat(5000) })],
    ];
    for (const [name, text] of cases) {
      const lean = await send(text, 'lean');
      const express = await send(text, 'express');
      expect(lean.etag, name).toBeNull();
      expect(express.etag, name).not.toBeNull();
      expect(lean.status, name).toBeGreaterThanOrEqual(400);
      expect(lean.status, name).toBeLessThan(500);
      expect({ status: lean.status, body: lean.body, type: lean.type }, name).toEqual({ status: express.status, body: express.body, type: express.type });
      expect(lean.requestId, name).toMatch(/^[0-9a-f-]{36}$/);
    }
    expect((await send('5', 'lean')).body).toMatchObject({ errCode: 'ERR_MALFORMED_JSON' });
    expect((await send(JSON.stringify({ pad: 'x'.repeat(5000) }), 'lean')).status).toBe(413);
  });

  it('takes a genuine callback in either lane: queued once, then a duplicate', async () => {
    const digest = randomBytes(32);
    await new OperationStore(svc.core.redis, svc.core.prefix).create(awaitingSignature(digest.toString('hex'), 'lean'));
    const text = JSON.stringify(callbackBody(digest));
    const first = await send(text, 'lean');
    expect([first.status, first.body.outcome, first.etag]).toEqual([200, 'queued', null]);
    const again = await send(text, 'express');
    expect([again.status, again.body.outcome]).toEqual([200, 'duplicate']);
    expect(first.type).toBe(again.type);
  });

  it('a client that goes away mid-body leaves nothing waiting, and the next callback is answered', async () => {
    const port = Number(new URL(svc.url).port);
    await new Promise<void>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.write(`POST ${PATH} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"publicKeys":`);
        setTimeout(() => {
          socket.destroy();
          resolve();
        }, 50);
      });
      socket.on('error', reject);
    });
    const res = await send('5', 'lean');
    expect(res.status).toBe(400);
  });

  it('reads BODY_LIMIT in the units of Express\'s body parser', () => {
    expect([sizeInBytes('512b'), sizeInBytes('4kb'), sizeInBytes('4mb')]).toEqual([512, 4096, 4 * 1024 * 1024]);
  });
});
