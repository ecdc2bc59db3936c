import type { AddressInfo } from 'node:net';
import express from 'express';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { REQUEST_LOG_FIELDS, requestLog } from '../../src/http/request-log.js';

/** One line per request, at the level its status says, with the id the caller sent when it is well formed. */
describe('request log', () => {
  const lines: Record<string, unknown>[] = [];
  const logger = pino({ level: 'info' }, { write: (s: string) => lines.push(JSON.parse(s) as Record<string, unknown>) });
  let base = '';
  let close = () => undefined as void;

  beforeAll(async () => {
    const app = express();
    app.use(requestLog(logger));
    app.get('/ok', (_req, res) => {
      res.locals[REQUEST_LOG_FIELDS] = { outcome: 'queued' };
      res.json({ ok: true });
    });
    app.get('/fails', (req, res) => {
      (req as unknown as { log: pino.Logger }).log.warn({ why: 'test' }, 'request rejected');
      res.status(422).json({});
    });
    app.get('/breaks', (_req, res) => res.status(503).json({}));
    const server = app.listen(0);
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    close = () => void server.close();
  });
  afterAll(() => close());

  const lineOf = async (id: string) => {
    // The request's own line is written once its answer is complete, after every other line of it.
    await vi.waitUntil(() => lines.some((l) => l.reqId === id && l.msg !== 'request rejected'), { timeout: 15_000, interval: 10 });
    return lines.filter((l) => l.reqId === id);
  };

  it('keeps a well-formed x-request-id, echoes it, and logs the route fields on one info line', async () => {
    const res = await fetch(`${base}/ok?x=1`, { headers: { 'x-request-id': 'abc-123' } });
    expect(res.headers.get('x-request-id')).toBe('abc-123');
    const mine = await lineOf('abc-123');
    expect(mine).toHaveLength(1);
    expect(mine[0]).toMatchObject({ level: 30, msg: 'request completed', outcome: 'queued', req: { method: 'GET', url: '/ok?x=1' }, res: { statusCode: 200 } });
    expect(typeof mine[0]!.responseTime).toBe('number');
  });

  it('replaces an id that is not one, warns from 400, errs from 500; the request logger carries the id', async () => {
    const res = await fetch(`${base}/fails`, { headers: { 'x-request-id': 'no spaces allowed' } });
    const id = res.headers.get('x-request-id')!;
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    const mine = await lineOf(id);
    expect(mine.map((l) => [l.msg, l.level])).toEqual([
      ['request rejected', 40],
      ['request completed', 40],
    ]);
    const broke = await fetch(`${base}/breaks`);
    expect((await lineOf(broke.headers.get('x-request-id')!))[0]).toMatchObject({ level: 50, res: { statusCode: 503 } });
  });
});
