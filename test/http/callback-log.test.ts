import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/platform/logger.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { freePort } from '../../src/dev/free-port.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { awaitingSignature, callbackBody } from '../helpers/one-signature.js';
import { startTestService, TEST_CALLBACK_SECRET, type TestService } from '../helpers/service.js';
import { until } from '../pipeline/support.js';

/**
 * A callback leaves one log line, its request's, naming the operation and what was done with
 * it (the ingest path writes no second line); a refused one still says why, at warn.
 */
describe('the log of a signing callback', () => {
  const lines: Record<string, unknown>[] = [];
  let svc: TestService;
  const post = (body: unknown) => {
    const raw = JSON.stringify(body);
    return svc.call('POST', '/api/v1.0/sign_complete_callback?ledgerId=ethdev', { rawBody: raw, headers: signCallback(TEST_CALLBACK_SECRET, raw) });
  };
  const about = (withdrawalId: string) => lines.filter((l) => JSON.stringify(l).includes(withdrawalId));

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk, _enc, done) {
        for (const l of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(l) as Record<string, unknown>);
        done();
      },
    });
    svc = await startTestService({ ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } }, { pipeline: true, logger: createLogger('info', [], sink) });
  });
  afterAll(() => svc?.stop());

  it('an accepted callback and its duplicate: one info line each, with the outcome and the operation id', async () => {
    const digest = randomBytes(32);
    const op = awaitingSignature(digest.toString('hex'), 'log');
    await new OperationStore(svc.core.redis, svc.core.prefix).create(op);
    expect((await post(callbackBody(digest))).body.outcome).toBe('queued');
    expect((await post(callbackBody(digest))).body.outcome).toBe('duplicate');
    // A second line would come from the ingest path, which runs before its request's line is
    // written (when the answer is complete): once both request lines are in, every line is.
    await until('both request lines', () => about(op.id).filter((l) => l.msg === 'request completed').length === 2);
    const logged = about(op.id);
    expect(logged).toHaveLength(2);
    for (const [line, outcome] of logged.map((l, i) => [l, ['queued', 'duplicate'][i]] as const)) {
      expect(line).toMatchObject({
        level: 30,
        msg: 'request completed',
        securityEvent: 'callback',
        ledgerId: 'ethdev',
        outcome,
        withdrawalId: op.id,
        res: { statusCode: 200 },
      });
      expect((line.req as { url: string }).url).toBe('/api/v1.0/sign_complete_callback?ledgerId=ethdev');
    }
  });

  it('a forged signature: a warn line with the reason, and the request line at warn', async () => {
    const digest = randomBytes(32);
    await new OperationStore(svc.core.redis, svc.core.prefix).create(awaitingSignature(digest.toString('hex'), 'log'));
    const before = lines.length;
    const res = await post(callbackBody(digest, randomBytes(32)));
    expect(res.status).toBe(400);
    const mine = await until('the request line', () => {
      const l = lines.slice(before);
      return l.some((x) => x.msg === 'request completed' || x.msg === 'request rejected') ? l : undefined;
    });
    expect(mine.find((l) => l.msg === 'callback rejected')).toMatchObject({ level: 40, securityEvent: 'callback', reason: 'bad-signature' });
    expect(mine.filter((l) => (l.res as { statusCode?: number } | undefined)?.statusCode === 400).every((l) => l.level === 40)).toBe(true);
    expect(mine.some((l) => l.outcome !== undefined)).toBe(false);
  });
});
