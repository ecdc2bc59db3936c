import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { parse as parseQuery } from 'node:querystring';
import type { Request, RequestHandler, Response } from 'express';
import { BadRequestError } from '../platform/errors.js';
import { appErrorOf, bodyTooLarge, malformedJson, reportError } from './error-handler.js';
import { answerRoute, bodyLimitOf, type AnyRouteSpec, type BodyLimits } from './route.js';
import { API_BASE } from '../platform/api-base.js';

/**
 * The routes marked `lean` are answered here, ahead of Express, when the request is plain JSON
 * (`application/json`, UTF-8, not compressed); anything else, and every other route, goes to
 * Express as before. Express 5's own work (router, body parser, response helpers) costs about
 * 0.15 ms of CPU per request, four times what Node's HTTP server and a JSON parse cost on
 * their own, and under a burst of signing callbacks it was a third of the receiver's time.
 *
 * Nothing of the route is done twice: the same middleware as in Express (the request log, the
 * latency metric), the same guard, schemas and handler (`answerRoute`), the same error mapping
 * and words (`error-handler.ts`). What is this lane's own is what Express would do around them:
 * `beforeBody`, reading the body up to the route's limit, strict JSON (an object or an array, as body-parser's
 * `strict`), the simple query parser, and writing the JSON answer.
 */
export function leanLane(
  specs: readonly AnyRouteSpec[],
  opts: { limits: BodyLimits; middleware: RequestHandler[] },
  fallback: RequestListener,
): RequestListener {
  const routes = new Map<string, AnyRouteSpec>();
  const limitOf = new Map<AnyRouteSpec, number>();
  for (const spec of specs.filter((s) => s.lean)) {
    if (spec.scope || spec.path.includes(':')) throw new Error(`route ${spec.path} cannot be lean: it has an API-key scope or path parameters`);
    routes.set(`${spec.method.toUpperCase()} ${spec.base ?? API_BASE}${spec.path}`, spec);
    limitOf.set(spec, sizeInBytes(bodyLimitOf(spec, opts.limits)));
  }
  if (routes.size === 0) return fallback;
  return (req, res) => {
    // Without the fragment, as Express's parseurl reads a URL.
    const full = req.url ?? '/';
    const hash = full.indexOf('#');
    const url = hash < 0 ? full : full.slice(0, hash);
    const q = url.indexOf('?');
    const path = q < 0 ? url : url.slice(0, q);
    const spec = routes.get(`${req.method} ${path}`);
    if (!spec || !plainJson(req)) return fallback(req, res);
    void serve(spec, path, q < 0 ? '' : url.slice(q + 1), req, res);
  };

  async function serve(spec: AnyRouteSpec, path: string, rawQuery: string, message: IncomingMessage, raw: ServerResponse): Promise<void> {
    // The few members of Express's request and response that the middleware and routes read.
    const req = Object.assign(message, {
      originalUrl: message.url,
      params: {},
      query: parseQuery(rawQuery),
      header: (name: string) => message.headers[name.toLowerCase()],
    }) as unknown as Request;
    const res = Object.assign(raw, { locals: { routePattern: path } }) as unknown as Response;
    for (const m of opts.middleware) m(req, res, () => undefined);
    try {
      // The caller is admitted (the callback's allow-list) before a byte of its body is read.
      await spec.beforeBody?.(req);
      // Neither a length nor a chunked body: no body at all, as body-parser (type-is) sees it.
      if (message.headers['content-length'] !== undefined || message.headers['transfer-encoding'] !== undefined) {
        const text = await readBody(message, limitOf.get(spec) as number);
        (req as { rawBody?: Buffer }).rawBody = text;
        req.body = parseStrictJson(text);
      }
      const result = await answerRoute(spec, req, res);
      if (!raw.headersSent) sendJson(raw, spec.status ?? 200, result);
    } catch (err) {
      const app = appErrorOf(err);
      const headers = reportError(req, err, app);
      if (!raw.headersSent) sendJson(raw, app.status, app.toBody(), headers);
    }
  }
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
