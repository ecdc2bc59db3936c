import { createBullBoard } from '@bull-board/api';
import { BullMQAdapter } from '@bull-board/api/bullMQAdapter';
import { ExpressAdapter } from '@bull-board/express';
import type { Express, Request, RequestHandler } from 'express';
import type { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { ForbiddenError, UnauthorizedError } from '../../platform/errors.js';
import { aboutOf, jobTitle } from '../../withdrawals/jobs/job-about.js';
import { findApiKey, type ApiKeyRecord } from '../../security/api-keys.js';
import { dashboardLoginRouter } from './dashboard-login.js';
import type { AuthThrottle } from '../auth-throttle.js';
import { DashboardSessions, isCrossSite, sessionToken } from './dashboard-sessions.js';
import { APP_ERROR_REF, type DocumentedPath } from '../openapi.js';

export const DASHBOARD_PATH = '/admin/queues';

/** The core's Redis, prefix (sessions live under it) and logger, and what the dashboard shows and whom it lets in. */
export interface DashboardOptions {
  redis: Redis;
  prefix: string;
  logger: Logger;
  queues: Queue[];
  records: readonly ApiKeyRecord[];
  readOnly: boolean;
  /** Throttles failed logins and keys (`auth-throttle.ts`); none when absent. */
  throttle?: AuthThrottle;
}

function headerKey(header: string): string | undefined {
  const bearer = /^Bearer\s+(\S+)$/i.exec(header);
  if (bearer) return bearer[1];
  const basic = /^Basic\s+(\S+)$/i.exec(header);
  if (basic)
    return Buffer.from(basic[1] as string, 'base64')
      .toString('utf8')
      .split(':')
      .slice(1)
      .join(':');
  return undefined;
}

const isApi = (req: Request): boolean => req.path.startsWith('/api/');
const wantsPage = (req: Request): boolean => req.method === 'GET' && !isApi(req) && (req.headers.accept ?? '').includes('text/html');

/**
 * Admin authentication for the dashboard, three ways: the session cookie of the login form
 * (what a browser uses: its page and its own API calls carry it), or, for tools, Bearer, or
 * Basic with the key as password (any user name). The key needs the `admin` scope.
 */
function dashboardAuth(records: readonly ApiKeyRecord[], sessions: DashboardSessions, throttle: AuthThrottle | undefined): RequestHandler {
  return async (req, res, next) => {
    try {
      const key = req.headers.authorization ? headerKey(req.headers.authorization) : undefined;
      const token = key === undefined ? sessionToken(req) : undefined;
      let record: ApiKeyRecord | undefined;
      if (key !== undefined) {
        throttle?.refuseIfBlocked(req, key);
        record = findApiKey(records, key);
        if (!record?.scopes.includes('admin')) {
          const refusal = await throttle?.failed(req, record ? 'no_admin_scope' : 'unknown_key', key);
          if (refusal) return next(refusal);
        }
      } else if (token) {
        // By the key's hash, not its name: a key replaced under the same name ends its sessions.
        const keySha256 = await sessions.check(token);
        record = keySha256 === undefined ? undefined : records.find((r) => r.sha256 === keySha256);
      }
      if (record?.scopes.includes('admin')) {
        // Whatever the credentials (a browser resends cached Basic ones too): SameSite=Strict keeps
        // the cookie off other sites' requests, and this is the second lock.
        if (!['GET', 'HEAD'].includes(req.method) && isCrossSite(req))
          return next(new ForbiddenError('The dashboard refuses changes requested from another site.'));
        return next();
      }
      if (wantsPage(req)) return res.redirect(303, `${req.baseUrl}/login`);
      // No Basic challenge on the page's own API calls: a browser would answer it with a dialog.
      res.setHeader('WWW-Authenticate', isApi(req) ? 'Bearer realm="job dashboard"' : 'Basic realm="job dashboard", charset="UTF-8"');
      next(new UnauthorizedError('The dashboard needs an admin API key: log in at /admin/queues/login, or send Bearer, or Basic with the key as password.'));
    } catch (e) {
      next(e);
    }
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
export function mountDashboard(app: Express, opts: DashboardOptions): DocumentedPath[] {
  const serverAdapter = new ExpressAdapter();
  serverAdapter.setBasePath(DASHBOARD_PATH);
  const adapters = opts.queues.map((q) => {
    const adapter = new BullMQAdapter(q, { readOnlyMode: opts.readOnly });
    // The stored name was written when the job was added; this one follows the job's refreshed `about`.
    adapter.setFormatter('name', (job: { name?: string; data?: unknown }) => {
      const about = aboutOf(job.data);
      return about ? jobTitle(q.name, about) : (job.name ?? '');
    });
    return adapter;
  });
  createBullBoard({
    queues: adapters,
    serverAdapter,
    options: {
      uiConfig: {
        boardTitle: opts.readOnly ? 'Withdrawal jobs (read-only)' : 'Withdrawal jobs',
        miscLinks: [{ text: 'Log out', url: `${DASHBOARD_PATH}/logout` }],
        // The board links to its project site by default; an operator's page links nowhere outside.
        hideDocsLink: true,
        jobDetails: { defaultTab: 'Data' },
      },
    },
  });
  const sessions = new DashboardSessions(opts.redis, opts.prefix);
  app.use(DASHBOARD_PATH, dashboardLoginRouter(DASHBOARD_PATH, opts.records, sessions, opts.logger, opts.throttle));
  app.use(DASHBOARD_PATH, dashboardAuth(opts.records, sessions, opts.throttle), serverAdapter.getRouter() as RequestHandler);
  return DASHBOARD_DOCS;
}
