/**
 * Property-based hostile input over every route the service documents: paths, queries, bodies
 * and credentials drawn at random, shaped after each route's own OpenAPI schemas half of the
 * time so the checks behind validation are reached too. Shared by the bounded run in
 * `npm test` and the larger one in `npm run faults`.
 */
import fc from 'fast-check';
import { signCallback } from '../../src/security/callback-hmac.js';

export interface FuzzTarget {
  baseUrl: string;
  /** The served OpenAPI document. */
  document: OpenApiLike;
  /** Values that get past lookups (a real vault, ledger, operation), mixed into paths. */
  known: Record<string, string[]>;
  keys: string[];
  callbackSecret?: string;
}

export interface OpenApiLike {
  paths: Record<string, Record<string, { parameters?: { name: string; in: string }[]; requestBody?: { content?: Record<string, { schema?: Schema }> } }>>;
}
interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  enum?: unknown[];
  $ref?: string;
}

export interface FuzzResult {
  /** The seed of the draws: FUZZ_SEED=<seed> replays them. */
  seed: number;
  requests: number;
  byStatus: Record<number, number>;
  /** Answers that broke the contract: a 5xx, a non-JSON error, an error without the AppError fields. */
  violations: string[];
}

const hostileString = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'grapheme', maxLength: 20 }),
  fc.constantFrom('', ' ', '0', '-1', '1e400', 'NaN', 'null', '../../etc/passwd', '%00', '0x', "'; DROP TABLE", '{"$gt":""}', '__proto__', 'constructor'),
  fc.string({ minLength: 2000, maxLength: 5000 }),
);

const leafValue: fc.Arbitrary<unknown> = fc.oneof(
  hostileString,
  fc.integer(),
  fc.double(),
  fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }).map(String),
  fc.boolean(),
  fc.constant(null),
);

const anyJson = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leafValue, tie('array'), tie('object')),
  array: fc.array(tie('value'), { maxLength: 5 }),
  object: fc.dictionary(fc.oneof(fc.string({ maxLength: 12 }), fc.constantFrom('__proto__', 'constructor')), tie('value'), { maxKeys: 5 }),
})).value;

/** An object with the schema's own property names (and the odd stranger), values at random. */
function shaped(schema: Schema | undefined): fc.Arbitrary<unknown> {
  const names = Object.keys(schema?.properties ?? {});
  if (names.length === 0) return anyJson;
  return fc
    .tuple(
      fc.subarray(names),
      fc.array(fc.oneof(leafValue, fc.array(leafValue, { maxLength: 3 }), anyJson), { minLength: names.length, maxLength: names.length }),
      fc.boolean(),
    )
    .map(([chosen, values, stranger]) => {
      const o: Record<string, unknown> = {};
      chosen.forEach((n, i) => (o[n] = values[i]));
      if (stranger) o.unexpected = 'x';
      return o;
    });
}

interface Operation {
  method: string;
  path: string;
  params: string[];
  query: string[];
  body?: Schema;
}

function operations(doc: OpenApiLike): Operation[] {
  const out: Operation[] = [];
  for (const [path, methods] of Object.entries(doc.paths)) {
    // The JSON API; pages and scrapes served beside it (dashboard, metrics) answer in their own formats.
    if (!path.startsWith('/api/')) continue;
    for (const [method, op] of Object.entries(methods)) {
      if (!['get', 'post', 'put', 'delete', 'patch'].includes(method)) continue;
      const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1] as string);
      const query = (op.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      out.push({
        method: method.toUpperCase(),
        path,
        params,
        query,
        body: op.requestBody?.content?.['application/json']?.schema ?? (op.requestBody ? {} : undefined),
      });
    }
  }
  return out;
}

/** One request drawn at random for `op`. */
function requestFor(op: Operation, t: FuzzTarget) {
  const param = (name: string) =>
    fc.oneof(
      fc.constantFrom(...(t.known[name] ?? ['x'])),
      hostileString.filter((s) => s.length > 0),
    );
  const pathArb = fc
    .tuple(...op.params.map(param))
    .map((values) => values.reduce<string>((p, v, i) => p.replace(`{${op.params[i]}}`, encodeURIComponent(v)), op.path));
  const queryArb = fc.dictionary(
    fc.oneof(fc.constantFrom(...(op.query.length ? op.query : ['q'])), fc.constantFrom('assets[]', 'limit', 'offset', 'x')),
    fc.oneof(hostileString, fc.array(hostileString, { maxLength: 3 })),
    { maxKeys: 4 },
  );
  const bodyArb = op.body === undefined ? fc.constant(undefined) : fc.oneof(shaped(op.body), anyJson, fc.constantFrom('{', '[]', 'null', '"x"', '{"a":'));
  const keyArb = fc.oneof(fc.constantFrom(...t.keys), fc.constant(undefined), hostileString);
  return fc.record({ path: pathArb, query: queryArb, body: bodyArb, key: keyArb, signed: fc.boolean() });
}

function queryString(q: Record<string, string | string[]>): string {
  const s = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) for (const one of Array.isArray(v) ? v : [v]) s.append(k, one);
  const text = s.toString();
  return text ? `?${text}` : '';
}

/** The seed of a run: FUZZ_SEED when set (to replay a run), else a fresh one. */
export function fuzzSeed(env: NodeJS.ProcessEnv = process.env): number {
  const text = env.FUZZ_SEED?.trim();
  if (!text) return Math.floor(Math.random() * 2 ** 31);
  if (!/^-?\d+$/.test(text) || !Number.isSafeInteger(Number(text))) throw new Error(`FUZZ_SEED must be an integer, got '${text}'`);
  return Number(text);
}

/**
 * Sends `runs` random requests spread over every documented operation, each operation's draws
 * from `seed` (FUZZ_SEED or a fresh one when not given; the same seed gives the same requests).
 * By default an answer that breaks the contract is only collected in `violations`. With
 * `strict`, it fails the property: fast-check shrinks the request to a minimal one and the
 * thrown error names the operation, the seed (FUZZ_SEED replays the run) and the counterexample.
 */
export async function fuzzRoutes(t: FuzzTarget, runs: number, seed = fuzzSeed(), opts: { strict?: boolean } = {}): Promise<FuzzResult> {
  const ops = operations(t.document);
  const result: FuzzResult = { seed, requests: 0, byStatus: {}, violations: [] };
  const perOp = Math.max(1, Math.ceil(runs / ops.length));
  for (const op of ops) {
    const violation = (text: string) => {
      result.violations.push(text);
      if (opts.strict) throw new Error(`contract violation: ${text}`);
    };
    try {
      await fc.assert(
        fc.asyncProperty(requestFor(op, t), async (r) => {
          const raw = r.body === undefined ? undefined : typeof r.body === 'string' && /^[{["n]/.test(r.body) ? r.body : JSON.stringify(r.body);
          const headers: Record<string, string> = {};
          if (raw !== undefined) headers['content-type'] = 'application/json';
          if (r.key !== undefined) headers.authorization = `Bearer ${r.key.replace(/[^\x20-\x7e]/g, '')}`;
          if (r.signed && t.callbackSecret && raw !== undefined) Object.assign(headers, signCallback(t.callbackSecret, raw));
          const url = `${t.baseUrl}${r.path}${queryString(r.query as Record<string, string | string[]>)}`;
          const res = await fetch(url, { method: op.method, headers, ...(raw !== undefined ? { body: raw } : {}) });
          const text = await res.text();
          result.requests++;
          result.byStatus[res.status] = (result.byStatus[res.status] ?? 0) + 1;
          const where = `${op.method} ${op.path} → ${res.status}`;
          if (res.status >= 500) violation(`${where}: ${text.slice(0, 300)}`);
          else if (res.status >= 400) {
            let body: Record<string, unknown> | undefined;
            try {
              body = JSON.parse(text) as Record<string, unknown>;
            } catch {
              violation(`${where}: error body is not JSON: ${text.slice(0, 200)}`);
            }
            if (body && !['title', 'details', 'errCode', 'type'].every((f) => typeof body[f] === 'string')) {
              violation(`${where}: error body lacks the AppError fields: ${text.slice(0, 200)}`);
            }
          }
        }),
        // Strict runs shrink the failing request; the others stop at the first thrown error (a crash).
        { numRuns: perOp, seed, endOnFailure: !opts.strict },
      );
    } catch (e) {
      throw new Error(`${op.method} ${op.path} (replay: FUZZ_SEED=${seed}): ${(e as Error).message}`, { cause: e });
    }
  }
  return result;
}
