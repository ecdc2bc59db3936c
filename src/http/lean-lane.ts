import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Request, RequestHandler, Response } from 'express';
import { BadRequestError } from '../platform/errors.js';
import { appErrorOf, bodyTooLarge, malformedJson, reportError } from './error-handler.js';
import { answerRoute, bodyLimitOf, type AnyRouteSpec, type BodyLimits } from './route.js';
import { keyReach } from './key-reach.js';
import type { Scope } from '../security/api-keys.js';
import { API_BASE } from '../platform/api-base.js';

/**
 * The routes marked `lean` are answered here, ahead of Express, when the request is plain JSON
 * (`application/json`, UTF-8, not compressed); anything else, and every other route, goes to
 * Express as before. Express 5's own work (router, body parser, response helpers) costs about
 * 0.15 ms of CPU per request, four times what Node's HTTP server and a JSON parse cost on
 * their own, and under a burst of signing callbacks it was a third of the receiver's time.
 *
 * Nothing of the route is done twice: the same middleware as in Express (the request log, the
 * latency metric), the same API-key check and key reach (`auth.ts`, `key-reach.ts`), the same
 * guard, schemas and handler (`answerRoute`), the same error mapping and words
 * (`error-handler.ts`). What is this lane's own is what Express would do around them: matching
 * the path, `beforeBody`, reading the body up to the route's limit, strict JSON (an object or
 * an array, as body-parser's `strict`), the simple query parser, and writing the JSON answer.
 *
 * A request is answered here only when Express would give it to the same route: the first route
 * of the same method whose pattern matches (in the order Express mounts them, `specs`) is the
 * lean one, its literal segments are spelled as declared, and no path parameter needs decoding
 * (no `%`). Anything else (another casing, a trailing slash, an encoded parameter) goes to
 * Express, which decides as it always did.
 */
export function leanLane(
  specs: readonly AnyRouteSpec[],
  opts: { limits: BodyLimits; middleware: RequestHandler[]; auth: (scope: Scope) => RequestHandler },
  fallback: RequestListener,
): RequestListener {
  const compiled = specs.map((spec) => compileRoute(spec, opts));
  if (!compiled.some((r) => r.lean)) return fallback;
  // By method and number of segments, each list in mount order: a request compares only the routes it could match.
  const routes = new Map<string, LeanRoute[]>();
  for (const r of compiled) {
    const shape = `${r.method} ${r.segments.length}`;
    routes.set(shape, [...(routes.get(shape) ?? []), r]);
  }
  return (req, res) => {
    // Without the fragment, as Express's parseurl reads a URL.
    const full = req.url ?? '/';
    const hash = full.indexOf('#');
    const url = hash < 0 ? full : full.slice(0, hash);
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const parts = path.split('/');
    const found = leanMatch(routes.get(`${req.method} ${parts.length}`) ?? [], parts);
    if (!found || (found.route.spec.body && !plainJson(req))) return fallback(req, res);
    void serve(found.route, found.lean, found.params, q < 0 ? '' : url.slice(q + 1), req, res);
  };

  async function serve(
    route: LeanRoute,
    lean: LeanServing,
    params: Record<string, string>,
    rawQuery: string,
    message: IncomingMessage,
    raw: ServerResponse,
  ): Promise<void> {
    const { spec } = route;
    // The few members of Express's request and response that the middleware and routes read.
    const req = Object.assign(message, {
      originalUrl: message.url,
      params,
      query: parseQuery(rawQuery),
      header: (name: string) => message.headers[name.toLowerCase()],
    }) as unknown as Request;
    const res = Object.assign(raw, { locals: { routePattern: route.pattern } }) as unknown as Response;
    for (const m of opts.middleware) m(req, res, () => undefined);
    try {
      // The API key first, then the caller is admitted (the callback's allow-list), both before a byte of its body is read.
      if (lean.auth) await runMiddleware(lean.auth, req, res);
      await spec.beforeBody?.(req);
      // A route without a body schema reads none, as Express mounts no body parser for it.
      // Neither a length nor a chunked body: no body at all, as body-parser (type-is) sees it.
      if (spec.body && hasBody(message)) {
        const text = await readBody(message, lean.bodyLimit);
        (req as { rawBody?: Buffer }).rawBody = text;
        req.body = parseStrictJson(text);
      }
      if (lean.reach) await runMiddleware(lean.reach, req, res);
      const result = await answerRoute(spec, req, res);
      if (!raw.headersSent) sendJson(raw, spec.status ?? 200, result);
    } catch (err) {
      const app = appErrorOf(err);
      const headers = reportError(req, err, app);
      if (!raw.headersSent) sendJson(raw, app.status, app.toBody(), headers);
    }
  }
}

/** A mounted route as this lane matches it; `lean` when this lane answers it. */
interface LeanRoute {
  spec: AnyRouteSpec;
  method: string;
  /** The full pattern (mount point and path), as the latency metric labels it. */
  pattern: string;
  /** Literal segments as declared, `undefined` where a parameter stands; and the parameters' names. */
  segments: (string | undefined)[];
  names: string[];
  lean?: LeanServing;
}

/** What this lane runs of a lean route beyond `answerRoute`: its body limit, and for a route with a scope the API-key check and key reach. */
interface LeanServing {
  bodyLimit: number;
  auth?: RequestHandler;
  reach?: RequestHandler;
}

function compileRoute(spec: AnyRouteSpec, opts: { limits: BodyLimits; auth: (scope: Scope) => RequestHandler }): LeanRoute {
  const pattern = `${spec.base ?? API_BASE}${spec.path}`;
  const parts = pattern.split('/');
  const route: LeanRoute = {
    spec,
    method: spec.method.toUpperCase(),
    pattern,
    segments: parts.map((p) => (p.startsWith(':') ? undefined : p)),
    names: parts.filter((p) => p.startsWith(':')).map((p) => p.slice(1)),
  };
  if (!spec.lean) return route;
  // Express answers a GET with an ETag (and a 304 to If-None-Match); this lane writes neither.
  if (spec.method === 'get') throw new Error(`route ${pattern} cannot be lean: a GET keeps Express's ETag and 304 answers`);
  if (/[^\w:/.-]/.test(pattern)) throw new Error(`route ${pattern} cannot be lean: only plain segments and :name parameters are matched here`);
  route.lean = {
    bodyLimit: sizeInBytes(bodyLimitOf(spec, opts.limits)),
    ...(spec.scope ? { auth: opts.auth(spec.scope), reach: keyReach(spec.acrossVaults) } : {}),
  };
  return route;
}

/**
 * The route Express would give the request to, when this lane answers it: the first route of
 * the method whose pattern matches (literals compared without case, as Express does) must be
 * a lean one, matched with its literals as declared and no parameter to decode.
 */
function leanMatch(
  routes: readonly LeanRoute[],
  parts: readonly string[],
): { route: LeanRoute; lean: LeanServing; params: Record<string, string> } | undefined {
  for (const route of routes) {
    let exact = true;
    let matches = true;
    for (let i = 0; i < parts.length && matches; i++) {
      const literal = route.segments[i];
      const part = parts[i] as string;
      if (literal === undefined) matches = part.length > 0;
      else if (literal !== part) {
        exact = false;
        matches = literal.toLowerCase() === part.toLowerCase();
      }
    }
    if (!matches) continue;
    const lean = route.lean;
    if (!lean || !exact) return undefined;
    const params: Record<string, string> = {};
    let n = 0;
    for (let i = 0; i < parts.length; i++) {
      if (route.segments[i] !== undefined) continue;
      const value = parts[i] as string;
      if (value.includes('%')) return undefined;
      params[route.names[n++] as string] = value;
    }
    return { route, lean, params };
  }
  return undefined;
}

/** Runs an Express middleware that ends by calling `next` (with an error, or none). */
function runMiddleware(handler: RequestHandler, req: Request, res: Response): Promise<void> {
  return new Promise((resolve, reject) => {
    void handler(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve()));
  });
}

/** A length or a chunked body: a body, as body-parser (type-is) sees it. */
function hasBody(req: IncomingMessage): boolean {
  return req.headers['content-length'] !== undefined || req.headers['transfer-encoding'] !== undefined;
}

/** `application/json`, in UTF-8 or without a charset, and not compressed: the form this lane reads itself. */
function plainJson(req: IncomingMessage): boolean {
  const type = req.headers['content-type'];
  const encoding = req.headers['content-encoding'];
  if (encoding !== undefined && encoding.toLowerCase() !== 'identity') return false;
  return type !== undefined && /^application\/json\s*(?:;\s*charset="?utf-8"?\s*)?$/i.test(type);
}

/** BODY_LIMIT (`512kb`, `4mb`) in bytes, in body-parser's units (1 kb = 1,024 bytes). */
export function sizeInBytes(text: string): number {
  const m = /^(\d+)(b|kb|mb)$/i.exec(text.trim());
  if (!m) throw new Error(`not a size: ${text}`);
  return Number(m[1]) * { b: 1, kb: 1024, mb: 1024 * 1024 }[(m[2] as string).toLowerCase() as 'b' | 'kb' | 'mb'];
}

/** The body, refused as soon as it is known to exceed `limit` (declared or counted). */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  if (declared > limit) return Promise.reject(bodyTooLarge(limit));
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) {
        chunks.push(chunk);
        return;
      }
      req.off('data', onData);
      req.resume();
      reject(bodyTooLarge(limit));
    };
    req.on('data', onData);
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, size)));
    // The client went away mid-body: nothing to answer, but nothing may wait for it either; its
    // socket's ECONNRESET is the client's doing, not a storage outage (error-handler.ts).
    const aborted = () => new BadRequestError('The request was aborted before its body arrived.');
    req.once('error', (err) => reject(req.complete ? err : aborted()));
    req.once('close', () => {
      if (!req.complete) reject(aborted());
    });
  });
}

/** JSON whose top level is an object or an array (body-parser's `strict`); an empty body is `{}`, as there. */
function parseStrictJson(raw: Buffer): unknown {
  let text = raw.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.length === 0) return {};
  const first = /\S/.exec(text)?.[0];
  if (first !== '{' && first !== '[') throw malformedJson();
  try {
    return JSON.parse(text);
  } catch {
    throw malformedJson();
  }
}

function sendJson(res: ServerResponse, status: number, value: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'Content-Type': 'application/json; charset=utf-8', 'Content-Length': Buffer.byteLength(text) });
  res.end(text);
}
