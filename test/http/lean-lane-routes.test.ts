import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RequestHandler } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { leanLane } from '../../src/http/lean-lane.js';
import { defineRoute, type AnyRouteSpec } from '../../src/http/route.js';
import { ForbiddenError } from '../../src/platform/errors.js';

const LIMITS = { authenticated: '1kb', open: '1kb' };

/** A POST route that answers which route took the request, with its path parameters. */
const post = (path: string, extra: Partial<AnyRouteSpec> = {}): AnyRouteSpec =>
  defineRoute({
    method: 'post',
    path,
    summary: path,
    tags: ['test'],
    body: z.object({ n: z.number() }),
    response: z.unknown(),
    handler: ({ req, body }) => ({ route: path, params: req.params, n: body.n }),
    ...extra,
  });

/**
 * Which requests the lean lane answers itself: only those Express would give to the same lean
 * route. Everything else reaches the fallback (Express in the service), which here answers
 * `{ fallback: true }`.
 */
describe('the lean lane matches routes as Express mounts them', () => {
  const allow: RequestHandler = (_req, res, next) => {
    res.locals.auth = { keyName: 'k', scopes: ['withdraw'] };
    next();
  };
  const deny: RequestHandler = (_req, _res, next) => next(new ForbiddenError('no scope'));
  let server: Server;
  let url: string;
  const specs = [
    post('/things/:id/parts'),
    post('/things/special/parts', { lean: true }),
    post('/boxes/:boxId/items/:itemId', { lean: true }),
    post('/guarded/:id', { lean: true, scope: 'withdraw' }),
    post('/refused/:id', { lean: true, scope: 'admin' }),
  ];

  beforeAll(async () => {
    const lane = leanLane(specs, { limits: LIMITS, middleware: [], auth: (scope) => (scope === 'withdraw' ? allow : deny) }, (_req, res) => {
      res.writeHead(299, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ fallback: true }));
    });
    server = createServer(lane);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1.0`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  const send = async (path: string, body = '{"n":1}', type = 'application/json') => {
    const res = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': type }, body });
    return { status: res.status, body: (await res.json()) as Record<string, unknown> };
  };

  it('answers a lean route with its path parameters', async () => {
    expect(await send('/boxes/b-1/items/i.2')).toEqual({
      status: 200,
      body: { route: '/boxes/:boxId/items/:itemId', params: { boxId: 'b-1', itemId: 'i.2' }, n: 1 },
    });
  });

  it('leaves to Express a path an earlier route matches, though a lean one matches too', async () => {
    expect((await send('/things/special/parts')).body).toEqual({ fallback: true });
  });

  it('leaves to Express what it spells or decodes its own way: another casing, a trailing slash, an encoded parameter, an empty one', async () => {
    for (const path of ['/BOXES/b/items/i', '/boxes/b/items/i/', '/boxes/b%2Fc/items/i', '/boxes//items/i']) {
      expect((await send(path)).body, path).toEqual({ fallback: true });
    }
  });

  it('leaves to Express a body that is not plain JSON', async () => {
    expect((await send('/boxes/b/items/i', 'n=1', 'application/x-www-form-urlencoded')).body).toEqual({ fallback: true });
  });

  it("runs the route's API-key check before its body: a refused key answers the refusal, the body unread", async () => {
    expect(await send('/guarded/g')).toEqual({ status: 200, body: { route: '/guarded/:id', params: { id: 'g' }, n: 1 } });
    const refused = await send('/refused/r', '{not json');
    expect(refused.status).toBe(403);
    expect(refused.body).toMatchObject({ errCode: 'ERR_FORBIDDEN', details: 'no scope' });
  });

  it('refuses to serve a GET lean, which would lose Express’s ETag', () => {
    const get = defineRoute({ method: 'get', path: '/x', summary: 'x', tags: ['t'], response: z.unknown(), handler: () => 1, lean: true });
    expect(() => leanLane([get], { limits: LIMITS, middleware: [], auth: () => allow }, () => undefined)).toThrow(/ETag/);
  });
});
