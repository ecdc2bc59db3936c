import { validate, compileErrors } from '@readme/openapi-parser';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { openApiDocument } from '../../src/http/openapi.js';
import { defineRoute } from '../../src/http/route.js';

const Item = z.object({ name: z.string(), size: z.number().default(1) }).meta({ id: 'Item' });

/** Any route declared with defineRoute is documented, whatever module declares it and wherever it is mounted. */
describe('openApiDocument', () => {
  const specs = [
    defineRoute({
      method: 'post',
      path: '/admin/items/:id',
      summary: 'a route another module adds',
      tags: ['x'],
      scope: 'admin',
      params: z.object({ id: z.string() }),
      body: Item,
      response: z.object({ item: Item, list: z.array(Item) }),
      errors: [404],
      handler: () => ({}),
    }),
    defineRoute({
      method: 'get',
      base: '/worker',
      path: '/health',
      summary: 'mounted elsewhere',
      tags: ['x'],
      produces: 'text/plain',
      response: z.string(),
      handler: () => 'ok',
    }),
  ];

  it('lists each route at its mount point, hoists shared schemas, and validates', async () => {
    const doc = openApiDocument(specs, '1.2.3') as any;
    expect(Object.keys(doc.paths)).toEqual(['/api/v1.0/admin/items/{id}', '/worker/health']);
    const op = doc.paths['/api/v1.0/admin/items/{id}'].post;
    expect(op.security).toEqual([{ bearer: ['admin'] }]);
    expect(Object.keys(op.responses).sort()).toEqual(['200', '400', '401', '403', '404', 'default']);
    // The request form (size optional: it has a default) and the response form (size always there) differ.
    expect(op.requestBody.content['application/json'].schema).toEqual({ $ref: '#/components/schemas/Item' });
    expect(op.responses['200'].content['application/json'].schema.properties.item).toEqual({ $ref: '#/components/schemas/ItemOutput' });
    expect(doc.components.schemas.Item.required).toEqual(['name']);
    expect(doc.components.schemas.ItemOutput.required).toEqual(['name', 'size']);
    expect(doc.paths['/worker/health'].get.responses['200'].content).toHaveProperty('text/plain');
    const result = await validate(doc);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
  });

  it('refuses two different schemas under one id, and one operation declared twice', () => {
    const other = z.object({ unrelated: z.boolean() }).meta({ id: 'Item' });
    const clash = defineRoute({ method: 'get', path: '/a', summary: 's', tags: [], response: z.object({ a: other }), handler: () => ({}) });
    expect(() => openApiDocument([specs[0]!, clash], '1')).toThrow(/share the id 'Item'/);
    expect(() => openApiDocument([specs[1]!, specs[1]!], '1')).toThrow(/declared twice/);
  });
});
