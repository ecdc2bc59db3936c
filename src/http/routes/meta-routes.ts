import { z } from 'zod';
import { metricsHandler, type Metrics } from '../../platform/metrics.js';
import { defineRoute } from '../route.js';

/**
 * GET /metrics (server root): open like /status, for a scraper inside the network; it carries
 * counts, never secrets or ids.
 */
export function metricsRoute(metrics: Metrics) {
  const serve = metricsHandler(metrics);
  return defineRoute({
    method: 'get',
    base: '',
    path: '/metrics',
    summary: 'Prometheus metrics of this process (text exposition format); keep it off the public interface',
    tags: ['operations'],
    produces: 'text/plain',
    response: z.string(),
    handler: async ({ req, res }) => {
      await serve(req, res, () => undefined);
    },
  });
}

/** GET /openapi.json: this document; `document` is read at request time, once every route is known. */
export function openApiRoute(document: () => Record<string, unknown>) {
  return defineRoute({
    method: 'get',
    path: '/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tags: ['operations'],
    response: z.looseObject({ openapi: z.string(), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) }),
    handler: () => document(),
  });
}
