import express, { type Request, type RequestHandler, type Response, type Router } from 'express';
import { z } from 'zod';
import { InvalidArgumentError } from '../platform/errors.js';
import type { Scope } from '../security/api-keys.js';
import { VAULT_ID_FORM, VAULT_ID_PATTERN } from '../vaults/vault-schema.js';
import type { AuthContext } from './auth.js';
import { keyReach, type AcrossVaults } from './key-reach.js';

/**
 * One route, declared once: its schemas validate requests here and produce the OpenAPI
 * document (`openapi.ts`), so the published contract cannot drift from what is enforced.
 */
export interface RouteSpec<P = unknown, Q = unknown, B = unknown> {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Express path below the mount point, e.g. `/ledgers/:ledgerId/addresses/:address/valid`. */
  path: string;
  /** Mount point: the wallet layer's `/api/v1.0` when absent; `''` for the server root. */
  base?: string;
  summary: string;
  tags: string[];
  /** Scope an API key needs; absent = no authentication. */
  scope?: Scope;
  /**
   * For a route that spans every vault (no vault or ledger named in its path or body): how a key
   * limited to some vaults or ledgers is held to them (`key-reach.ts`). Routes that name theirs
   * (`:vaultId`, `:ledgerId`, body `vaultId`, `recipientVault`, `ledgerId`) are checked by name.
   */
  acrossVaults?: AcrossVaults;
  params?: z.ZodType<P>;
  query?: z.ZodType<Q>;
  body?: z.ZodType<B>;
  /** Schema of the 200 (or `status`) answer. */
  response: z.ZodType;
  status?: number;
  /** Media type of a non-JSON answer (the handler writes it); JSON when absent. */
  produces?: string;
  /**
   * Security requirements for the document when a `guard` authenticates (scheme names of
   * `openapi.ts`, e.g. `[{ callbackTimestamp: [], callbackSignature: [] }]`); `scope` implies the API key.
   */
  security?: Record<string, string[]>[];
  /**
   * Served ahead of Express (`lean-lane.ts`) when the request is plain JSON: for a route under
   * burst load, where Express's own work per request is much of what it costs. Not a GET: Express
   * answers those with an ETag (and 304 to If-None-Match), which the lean lane does not write.
   */
  lean?: boolean;
  /**
   * Runs before the body is read (after the API key, when the route has a scope): checks that
   * need only the connection and the headers (the callback's allow-list, a rate limit), so a
   * refused caller costs no body read and no parse.
   */
  beforeBody?(req: Request): void | Promise<void>;
  /** Runs before any validation: authentication that must not reveal the expected shapes. */
  guard?(req: Request): void | Promise<void>;
  /**
   * Largest body this route reads, when not the default of its kind (BODY_LIMIT with an API-key
   * scope, OPEN_BODY_LIMIT without one).
   */
  bodyLimit?: string;
  /** Optional request headers the route reads, for the document. */
  headers?: string[];
  /** Extra error statuses this route may answer, for the document. */
  errors?: number[];
  /**
   * What a status means on this route where it differs from the usual meaning (`openapi.ts`),
   * and its body schema when that is not `AppError`.
   */
  responses?: Partial<Record<number, { description: string; schema?: z.ZodType }>>;
  handler(input: { params: P; query: Q; body: B; auth?: AuthContext; req: Request; res: Response }): Promise<unknown> | unknown;
}

export function describeIssues(where: string, error: z.ZodError): string {
  return error.issues
    .map((i) => {
      const path = i.path.length ? `${where}.${i.path.join('.')}` : where;
      return `${path}: ${i.message}`;
    })
    .join('; ');
}

function parse<T>(schema: z.ZodType<T> | undefined, value: unknown, where: string): T {
  if (!schema) return undefined as T;
  const r = schema.safeParse(value);
  if (!r.success) throw new InvalidArgumentError(describeIssues(where, r.error));
  return r.data;
}

/** A route of any parameter types, for lists of routes. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- each spec's own types are checked where it is defined
export type AnyRouteSpec = RouteSpec<any, any, any>;

/** Body limits by kind of route: BODY_LIMIT behind an API key, OPEN_BODY_LIMIT for the routes without one. */
export interface BodyLimits {
  authenticated: string;
  open: string;
}

/** The body limit of a route: its own, else the one of its kind. */
export function bodyLimitOf(spec: AnyRouteSpec, limits: BodyLimits): string {
  return spec.bodyLimit ?? (spec.scope ? limits.authenticated : limits.open);
}

/**
 * Mounts a route: its API key check, then `beforeBody`, and only then the body parser (and only
 * for a route that takes a body), so neither an unknown path nor a refused caller gets its body
 * read. The raw body is kept for routes that authenticate it (the signing callback's HMAC).
 */
export function mountRoute(router: Router, spec: AnyRouteSpec, auth: (scope: Scope) => RequestHandler, limits: BodyLimits): void {
  const handlers: RequestHandler[] = [
    (req, res, next) => {
      // The matched pattern, kept for the latency metric: an error handler runs after Express reset req.baseUrl.
      res.locals.routePattern = `${req.baseUrl}${spec.path}`;
      next();
    },
  ];
  if (spec.scope) handlers.push(auth(spec.scope));
  const beforeBody = spec.beforeBody;
  if (beforeBody) {
    handlers.push(async (req, _res, next) => {
      try {
        await beforeBody(req);
        next();
      } catch (e) {
        next(e);
      }
    });
  }
  if (spec.body) {
    handlers.push(
      express.json({
        limit: bodyLimitOf(spec, limits),
        verify: (req, _res, buf) => {
          (req as { rawBody?: Buffer }).rawBody = buf;
        },
      }),
    );
  }
  // After the body: a key limited to vaults or ledgers is held to them by the path's and the body's ids.
  if (spec.scope) handlers.push(keyReach(spec.acrossVaults));
  handlers.push(async (req, res) => {
    const result = await answerRoute(spec, req, res);
    if (!res.headersSent) res.status(spec.status ?? 200).json(result);
  });
  router[spec.method](spec.path, ...handlers);
}

/**
 * What a route answers, from a request whose `params`, `query` (parsed, as Express's simple
 * parser leaves it) and `body` (parsed JSON) are set: its guard, its schemas, its handler.
 * The one path of every lane (Express above, `lean-lane.ts`).
 */
export async function answerRoute(spec: AnyRouteSpec, req: Request, res: Response): Promise<unknown> {
  await spec.guard?.(req);
  checkVaultIdParam(req.params);
  const params = parse(spec.params, req.params, 'path');
  const query = spec.query ? parse(spec.query, bracketLists(req.query as Record<string, unknown>), 'query') : (undefined as never);
  // A route whose body schema takes undefined (an optional body) may be called without one.
  if (spec.body && req.body === undefined && !spec.body.safeParse(undefined).success)
    throw new InvalidArgumentError('a JSON body is required (Content-Type: application/json)');
  const body = parse(spec.body, req.body, 'body');
  return spec.handler({ params, query, body, auth: res.locals.auth as AuthContext | undefined, req, res });
}

/**
 * A vault id in the path becomes a path segment of custody URLs: whatever a route's own
 * schema says, every `:vaultId` must have the form of a vault id (no `.`, `..` or `/`).
 */
function checkVaultIdParam(params: Request['params'] | undefined): void {
  const vaultId = params?.vaultId;
  if (typeof vaultId === 'string' && !VAULT_ID_PATTERN.test(vaultId)) throw new InvalidArgumentError(`path.vaultId: ${VAULT_ID_FORM}`, { field: 'vaultId' });
}

/**
 * Express 5's default ("simple") query parser keeps `assets[]=A` as a key named `assets[]`,
 * which a schema would silently drop. `name[]` is the array form many clients send, so it
 * joins `name`; any other bracket form (`assets[0]`, `a[b]`) is refused, never ignored.
 */
export function bracketLists(query: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const add = (key: string, value: unknown): void => {
    const values = Array.isArray(value) ? value : [value];
    const had = out[key];
    out[key] = had === undefined ? value : [...(Array.isArray(had) ? had : [had]), ...values];
  };
  for (const [key, value] of Object.entries(query)) {
    const list = /^([^[\]]+)\[\]$/.exec(key);
    if (list) add(list[1] as string, Array.isArray(value) ? value : [value]);
    else if (/[[\]]/.test(key))
      throw new InvalidArgumentError(`query: '${key}' is not supported; repeat the parameter, use name[]=, or separate values with commas`);
    else add(key, value);
  }
  return out;
}

/** Identity helper that keeps each route's types inferred from its schemas. */
export function defineRoute<P, Q, B>(spec: RouteSpec<P, Q, B>): RouteSpec<P, Q, B> {
  return spec;
}

/** Query values may come as `a,b` or repeated `a&a`; both become a list. */
export const listParam = z
  .union([z.string(), z.array(z.string())])
  .optional()
  .transform((v) =>
    v === undefined
      ? undefined
      : (Array.isArray(v) ? v : [v])
          .flatMap((s) => s.split(','))
          .map((s) => s.trim())
          .filter(Boolean),
  );
