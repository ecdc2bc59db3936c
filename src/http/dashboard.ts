import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, RequestHandler } from 'express';
import type { Queue } from 'bullmq';
import { UnauthorizedError } from '../errors.js';
import { findApiKey, type ApiKeyRecord } from '../security/api-keys.js';
import { APP_ERROR_REF, type DocumentedPath } from './openapi.js';

export const DASHBOARD_PATH = '/admin/queues';

/**
 * Browsers cannot send a Bearer header to a page, so the dashboard also takes HTTP Basic
 * with the API key as password (any user name). The key needs the `admin` scope.
 */
function dashboardAuth(records: readonly ApiKeyRecord[]): RequestHandler {
  return (req, res, next) => {
    const header = req.headers.authorization ?? '';
    let key: string | undefined;
    const bearer = /^Bearer\s+(\S+)$/i.exec(header);
    const basic = /^Basic\s+(\S+)$/i.exec(header);
    if (bearer) key = bearer[1];
    else if (basic) key = Buffer.from(basic[1] as string, 'base64').toString('utf8').split(':').slice(1).join(':');
    const record = key ? findApiKey(records, key) : undefined;
    if (!record || !record.scopes.includes('admin')) {
      res.setHeader('WWW-Authenticate', 'Basic realm="job dashboard", charset="UTF-8"');
      return next(new UnauthorizedError('The dashboard needs an API key with the admin scope (Bearer, or Basic with the key as password).'));
    }
    next();
  };
}

/** The dashboard as the OpenAPI document lists it (bull-board serves its own pages and JSON below the path). */
export const DASHBOARD_DOCS: DocumentedPath[] = [
  {
    method: 'get',
    path: DASHBOARD_PATH,
    operation: {
      summary: `Job dashboard (bull-board): HTML pages, and bull-board's own JSON API under ${DASHBOARD_PATH}/api/…; read-only unless DASHBOARD_READ_ONLY=false`,
      tags: ['operations'],
      security: [{ dashboardBasic: [] }, { bearer: ['admin'] }],
      responses: {
        200: { description: 'The dashboard page', content: { 'text/html': { schema: { type: 'string' } } } },
        401: {
          description: 'No API key with the admin scope (Basic with the key as password, or Bearer); carries WWW-Authenticate: Basic',
          content: { 'application/json': { schema: APP_ERROR_REF } },
        },
      },
    },
  },
];

/** bull-board over every queue, behind admin authentication, read-only unless configured; returns what it serves, for the document. */
export function mountDashboard(app: Express, queues: Queue[], records: readonly ApiKeyRecord[], readOnly: boolean): DocumentedPath[] {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  createBullBoard({ queues: queues.map((q) => new BullMQAdapter(q, { readOnlyMode: readOnly })), serverAdapter });
  app.use(DASHBOARD_PATH, dashboardAuth(records), serverAdapter.getRouter() as RequestHandler);
  return DASHBOARD_DOCS;
}
