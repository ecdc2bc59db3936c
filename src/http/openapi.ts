import { z } from 'zod';
import type { AnyRouteSpec } from './route.js';
import { API_BASE } from '../platform/api-base.js';
import { appErrorSchema } from './schemas.js';

type JsonSchema = Record<string, unknown>;

/** An operation served outside `route()` (a mounted sub-application such as the dashboard), documented as is. */
export interface DocumentedPath {
  method: 'get' | 'post' | 'put' | 'delete';
  /** Full OpenAPI path, e.g. `/admin/queues`. */
  path: string;
  operation: JsonSchema;
}

export const APP_ERROR_REF = { $ref: '#/components/schemas/AppError' };

const SECURITY_SCHEMES = {
  bearer: { type: 'http', scheme: 'bearer', description: 'API key (API_KEYS) with the scopes read, withdraw, admin: `Authorization: Bearer <key>`' },
  callbackTimestamp: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Callback-Timestamp',
    description: 'Unix seconds when the callback was signed; within CALLBACK_TOLERANCE_SECONDS of this service’s clock',
  },
  callbackSignature: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Callback-Signature',
    description:
      '`sha256=<hex HMAC-SHA256(CALLBACK_SECRET, "<timestamp>.<raw body>")>`. Sent together with X-Callback-Timestamp. ' +
      'A peer allow-list (CALLBACK_ALLOWED_IPS, e.g. behind mTLS) may replace or add to it.',
  },
  dashboardBasic: {
    type: 'http',
    scheme: 'basic',
    description: 'For browsers: any user name, an API key with the admin scope as password (Bearer works too)',
  },
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request (body not JSON)',
  401: 'Missing or unknown API key',
  403: 'API key lacks the scope',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  422: 'Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values) or insufficient funds (ERR_INSUFFICIENT_FUNDS)',
  429: 'Too many requests from this client (its API key, else its address); retry after Retry-After seconds',
  500: 'Internal error',
  501: 'Not supported by this ledger',
  502: 'A back end answered with something unusable',
  503: 'A dependency is unavailable; retry (Retry-After)',
};

/**
 * Shared schemas, hoisted from zod's per-schema `$defs` (schemas with `meta({ id })`) into
 * `components/schemas`, so every `$ref` resolves against the document.
 */
class Components {
  readonly schemas: Record<string, JsonSchema> = {};
  /** Whether each id was first placed by a request (input) or a response (output) form. */
  private readonly origin = new Map<string, 'input' | 'output'>();

  /** JSON Schema of `schema` for the document: its `$defs` moved to the components, refs rewritten. */
  add(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
    const { $schema: _drop, $defs, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
    const names = new Map<string, string>();
    for (const [name, def] of Object.entries(($defs ?? {}) as Record<string, JsonSchema>)) {
      names.set(name, this.place(name, def, io));
    }
    const rewrite = (value: unknown): unknown => {
      if (Array.isArray(value)) return value.map(rewrite);
      if (!value || typeof value !== 'object') return value;
      const out: JsonSchema = {};
      for (const [k, v] of Object.entries(value)) {
        const m = k === '$ref' && typeof v === 'string' ? /^#\/\$defs\/(.+)$/.exec(v) : null;
        out[k] = m ? `#/components/schemas/${names.get(m[1] as string) ?? m[1]}` : rewrite(v);
      }
      return out;
    };
    for (const [name, placed] of names) this.schemas[placed] = rewrite(this.schemas[placed] ?? ($defs as Record<string, JsonSchema>)[name]) as JsonSchema;
    return rewrite(rest) as JsonSchema;
  }

  /** Request and response forms of one id may differ (defaults, extra keys): the second form gets a suffix. */
  private place(name: string, def: JsonSchema, io: 'input' | 'output'): string {
    const text = JSON.stringify(def);
    const same = (had: JsonSchema): boolean => JSON.stringify(had) === text || this.sameAfterRewrite(had, text);
    const first = this.schemas[name];
    if (first === undefined) {
      this.schemas[name] = def;
      this.origin.set(name, io);
      return name;
    }
    if (same(first)) return name;
    const suffixed = `${name}${io === 'input' ? 'Input' : 'Output'}`;
    const second = this.schemas[suffixed];
    if (this.origin.get(name) !== io && (second === undefined || same(second))) {
      this.schemas[suffixed] ??= def;
      return suffixed;
    }
    throw new Error(`OpenAPI: two different schemas share the id '${name}'`);
  }

  private sameAfterRewrite(had: JsonSchema, text: string): boolean {
    return JSON.stringify(had) === text.replace(/"#\/\$defs\/([^"]+)"/g, '"#/components/schemas/$1"');
  }
}

function parameters(spec: AnyRouteSpec, components: Components): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [
    ['path', spec.params],
    ['query', spec.query],
  ] as const) {
    if (!schema) continue;
    const json = components.add(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      const { description, ...rest } = s;
      out.push({
        name,
        in: where,
        required: where === 'path' || (json.required ?? []).includes(name),
        ...(typeof description === 'string' ? { description } : {}),
        schema: rest,
      });
    }
  }
  for (const name of spec.headers ?? []) out.push({ name, in: 'header', required: false, schema: { type: 'string' } });
  return out;
}

function responses(spec: AnyRouteSpec, components: Components): Record<string, JsonSchema> {
  const ok = spec.status ?? 200;
  const media = spec.produces ?? 'application/json';
  const description = spec.responses?.[ok]?.description ?? 'Success';
  // 204 carries no body: the document says so instead of describing one.
  const out: Record<string, JsonSchema> = {
    [String(ok)]: ok === 204 ? { description } : { description, content: { [media]: { schema: components.add(spec.response, 'output') } } },
  };
  const statuses = new Set([
    ...(spec.errors ?? []),
    ...(spec.scope ? [401, 403] : []),
    ...(spec.body ? [400] : []),
    ...Object.keys(spec.responses ?? {}).map(Number),
  ]);
  for (const status of [...statuses].filter((s) => s !== ok).sort()) {
    const own = spec.responses?.[status];
    out[String(status)] = {
      description: own?.description ?? STATUS_TEXT[status] ?? 'Error',
      content: { 'application/json': { schema: own?.schema ? components.add(own.schema, 'output') : APP_ERROR_REF } },
    };
  }
  out.default = { description: 'Any other error, in the AppError shape', content: { 'application/json': { schema: APP_ERROR_REF } } };
  return out;
}

function security(spec: AnyRouteSpec): JsonSchema {
  if (spec.security) return { security: spec.security };
  if (spec.scope) return { security: [{ bearer: [spec.scope] }] };
  return { security: [] };
}

/**
 * OpenAPI 3.1 document of every route declared with `route()`/`defineRoute` (each at its own
 * mount point), plus the operations mounted otherwise (`extra`).
 */
export function openApiDocument(specs: AnyRouteSpec[], version: string, extra: DocumentedPath[] = []): JsonSchema {
  const components = new Components();
  components.add(appErrorSchema, 'output');
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of specs) {
    const path = (spec.base ?? API_BASE) + spec.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const op: JsonSchema = {
      operationId: operationId(spec.method, path),
      summary: spec.summary,
      tags: spec.tags,
      parameters: parameters(spec, components),
      ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: components.add(spec.body, 'input') } } } } : {}),
      ...security(spec),
      responses: responses(spec, components),
    };
    if (paths[path]?.[spec.method]) throw new Error(`OpenAPI: ${spec.method.toUpperCase()} ${path} is declared twice`);
    (paths[path] ??= {})[spec.method] = op;
  }
  for (const doc of extra) (paths[doc.path] ??= {})[doc.method] = { operationId: operationId(doc.method, doc.path), ...doc.operation };
  const ids = Object.values(paths).flatMap((item) => Object.values(item).map((op) => op.operationId));
  const twice = ids.find((id, i) => ids.indexOf(id) !== i);
  if (twice) throw new Error(`OpenAPI: operationId ${String(twice)} names two operations`);
  return {
    openapi: '3.1.0',
    info: { title: 'Bring-your-own-wallet ledger adaptor', version },
    paths,
    components: { schemas: components.schemas, securitySchemes: SECURITY_SCHEMES },
  };
}

/** A stable, readable operation id from method and path: `get_api_v1.0_vaults_vaultId_balance` → `getVaultsVaultIdBalance`. */
function operationId(method: string, path: string): string {
  const words = path
    .replace(API_BASE, '')
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return method + words.join('');
}
