import { z } from 'zod';
import type { AnyRouteSpec } from './route.js';
import { appErrorSchema } from './schemas.js';

type JsonSchema = Record<string, unknown>;

const toSchema = (schema: z.ZodType, io: 'input' | 'output'): JsonSchema => {
  const { $schema: _drop, ...rest } = z.toJSONSchema(schema, { io, unrepresentable: 'any', target: 'draft-2020-12' }) as JsonSchema;
  return rest;
};

const STATUS_TEXT: Record<number, string> = {
  400: 'Malformed request',
  401: 'Missing or unknown API key',
  403: 'API key lacks the scope',
  404: 'Not found',
  409: 'Conflict',
  413: 'Body too large',
  422: 'Invalid arguments (ERR_INVALID_ARGUMENTS names the valid values)',
  503: 'A dependency is unavailable; retry',
};

function parameters(spec: AnyRouteSpec): JsonSchema[] {
  const out: JsonSchema[] = [];
  for (const [where, schema] of [['path', spec.params], ['query', spec.query]] as const) {
    if (!schema) continue;
    const json = toSchema(schema, 'input') as { properties?: Record<string, JsonSchema>; required?: string[] };
    for (const [name, s] of Object.entries(json.properties ?? {})) {
      out.push({ name, in: where, required: where === 'path' || (json.required ?? []).includes(name), schema: s });
    }
  }
  for (const name of spec.headers ?? []) out.push({ name, in: 'header', required: false, schema: { type: 'string' } });
  return out;
}

/** OpenAPI 3.1 document built from the same route specs that validate requests. */
export function openApiDocument(specs: AnyRouteSpec[], basePath: string, version: string): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const spec of specs) {
    const path = basePath + spec.path.replace(/:([A-Za-z]+)/g, '{$1}');
    const responses: Record<string, JsonSchema> = {
      [String(spec.status ?? 200)]: { description: 'Success', content: { 'application/json': { schema: toSchema(spec.response, 'output') } } },
    };
    for (const status of new Set([...(spec.errors ?? []), ...(spec.scope ? [401, 403] : []), 400])) {
      responses[String(status)] = {
        description: STATUS_TEXT[status] ?? 'Error',
        content: { 'application/json': { schema: { $ref: '#/components/schemas/AppError' } } },
      };
    }
    (paths[path] ??= {})[spec.method] = {
      summary: spec.summary,
      tags: spec.tags,
      parameters: parameters(spec),
      ...(spec.body ? { requestBody: { required: true, content: { 'application/json': { schema: toSchema(spec.body, 'input') } } } } : {}),
      ...(spec.scope ? { security: [{ bearer: [spec.scope] }] } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.0',
    info: { title: 'Bring-your-own-wallet ledger adaptor', version },
    paths,
    components: {
      schemas: { AppError: toSchema(appErrorSchema, 'output') },
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'API key with scopes read, withdraw, admin' } },
    },
  };
}
