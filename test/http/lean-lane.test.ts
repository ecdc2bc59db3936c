import { randomBytes } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { freePort } from '../../src/dev/free-port.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { sizeInBytes } from '../../src/http/lean-lane.js';
import { createLogger } from '../../src/platform/logger.js';
import { awaitingSignature, callbackBody } from '../helpers/one-signature.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';
import { until } from '../pipeline/support.js';

const PATH = '/api/v1.0/sign_complete_callback?ledgerId=ethdev';

/**
 * The signing callback is answered ahead of Express when it is plain JSON, and by Express when
 * it is not (here: gzip, which only Express's body parser inflates). Both lanes must answer
 * every request alike. Express's `res.json` adds an ETag, the lean lane does not: that tells
 * which lane answered.
 */
describe('the lean lane of the signing callback', () => {
  let svc: TestService;

  const lines: Record<string, unknown>[] = [];
  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } },
      { pipeline: true, env: { CALLBACK_BODY_LIMIT: '4kb' }, logger: createLogger('info', [], sink) },
    );
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
      ['over CALLBACK_BODY_LIMIT', JSON.stringify({ pad: 'x'.repeat(5000) })],
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

  it("a client that goes away mid-body leaves nothing waiting, is logged as the client's doing (not a storage outage), and the next callback is answered", async () => {
    const port = Number(new URL(svc.url).port);
    const before = lines.length;
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
    const logged = await until("the aborted request's lines", () => {
      const reqId = lines.slice(before).find((l) => l.msg === 'request aborted')?.reqId;
      const mine = lines.slice(before).filter((l) => l.reqId === reqId);
      return reqId && mine.some((l) => l.msg === 'request rejected') ? mine : undefined;
    });
    expect(logged.filter((l) => l.level === 50)).toEqual([]);
    expect(logged.find((l) => l.msg === 'request rejected')).toMatchObject({ level: 40, errCode: 'ERR_BAD_REQUEST' });
  });

  /** A raw HTTP/1.1 exchange: fetch would drop a fragment and always sends a length. */
  function raw(request: string): Promise<{ status: number; body: Record<string, unknown>; etag: boolean }> {
    const port = Number(new URL(svc.url).port);
    return new Promise((resolve, reject) => {
      let text = '';
      const socket = connect(port, '127.0.0.1', () => socket.write(request));
      socket.on('data', (d) => {
        text += String(d);
        const [head, body] = text.split('\r\n\r\n');
        const length = Number(/content-length: (\d+)/i.exec(head ?? '')?.[1]);
        if (body !== undefined && Buffer.byteLength(body) >= length) {
          socket.destroy();
          resolve({ status: Number(head!.split(' ')[1]), body: JSON.parse(body) as Record<string, unknown>, etag: /\betag:/i.test(head!) });
        }
      });
      socket.on('error', reject);
    });
  }

  it("reads the query without the URL's fragment, as Express does", async () => {
    const digest = randomBytes(32);
    await new OperationStore(svc.core.redis, svc.core.prefix).create(awaitingSignature(digest.toString('hex'), 'fragment'));
    const text = JSON.stringify(callbackBody(digest));
    const headers = Object.entries({
      ...signCallback(TEST_CALLBACK_SECRET, text),
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(text)),
    })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const res = await raw(`POST ${PATH}#frag HTTP/1.1\r\nHost: x\r\n${headers}\r\n${text}`);
    expect([res.status, res.body.outcome, res.etag]).toEqual([200, 'queued', false]);
  });

  it('a POST without any body is told a JSON body is required, in both lanes', async () => {
    const headers = Object.entries({ ...signCallback(TEST_CALLBACK_SECRET, ''), 'content-type': 'application/json' })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    const lean = await raw(`POST ${PATH} HTTP/1.1\r\nHost: x\r\n${headers}\r\n`);
    const express = await raw(`POST ${PATH} HTTP/1.1\r\nHost: x\r\ncontent-encoding: gzip\r\n${headers}\r\n`);
    expect([lean.etag, express.etag]).toEqual([false, true]);
    expect(lean.body).toEqual(express.body);
    expect(lean.body).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS' });
    expect(String(lean.body.details)).toMatch(/a JSON body is required/);
  });

  it("reads BODY_LIMIT in the units of Express's body parser", () => {
    expect([sizeInBytes('512b'), sizeInBytes('4kb'), sizeInBytes('4mb')]).toEqual([512, 4096, 4 * 1024 * 1024]);
  });
});
