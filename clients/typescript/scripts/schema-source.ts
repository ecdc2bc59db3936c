import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = `/**
 * Generated from the service's OpenAPI document by \`npm run client:generate\` (openapi-typescript).
 * Do not edit: regenerate, and a test fails while this file differs from what the service serves.
 */

`;

/** The `schema.d.ts` text for an OpenAPI document: the one generator the command and the staleness test share. */
export async function schemaSource(document: Record<string, unknown>): Promise<string> {
  const ast = await openapiTS(structuredClone(document) as unknown as Parameters<typeof openapiTS>[0]);
  return HEADER + astToString(ast);
}
