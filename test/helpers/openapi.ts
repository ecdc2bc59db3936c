import * as responseValidatorModule from 'openapi-response-validator';
import type { IOpenAPIResponseValidator, OpenAPIResponseValidatorArgs } from 'openapi-response-validator';

type ValidatorClass = new (args: OpenAPIResponseValidatorArgs) => IOpenAPIResponseValidator;
// A CommonJS module marked __esModule: Node's ESM loader hands out the exports object as the
// default, vitest the class itself.
const loaded = (responseValidatorModule as unknown as { default: ValidatorClass | { default: ValidatorClass } }).default;
const ResponseValidator: ValidatorClass = 'default' in loaded ? loaded.default : loaded;

export interface OpenApiDoc {
  paths: Record<string, Record<string, { responses: Record<string, unknown>; security?: unknown; [k: string]: unknown }>>;
  components: Record<string, any>;
}

/** The document's operation for a concrete request path (query ignored), matched by its templates. */
export function operationFor(doc: OpenApiDoc, method: string, path: string): { key: string; op: OpenApiDoc['paths'][string][string] } {
  const bare = path.split('?')[0] as string;
  for (const [template, item] of Object.entries(doc.paths)) {
    const re = new RegExp(`^${template.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);
    const op = item[method.toLowerCase()];
    if (re.test(bare) && op) return { key: `${method.toUpperCase()} ${template}`, op };
  }
  throw new Error(`${method} ${bare} is served but not in the document`);
}

/** Errors of `body` against the operation's documented response for `status` (openapi-response-validator), or undefined. */
export function responseErrors(doc: OpenApiDoc, op: OpenApiDoc['paths'][string][string], status: number, body: unknown): unknown[] | undefined {
  const validator = new ResponseValidator({ responses: structuredClone(op.responses) as never, components: structuredClone(doc.components) as never });
  return validator.validateResponse(String(status), body)?.errors;
}
