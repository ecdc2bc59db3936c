/**
 * Custody emulator: a development stand-in for the custody service's management API
 * (spec revision 1.0.2106 and the older `/casp` base), with participants' devices played
 * by emulator-only routes and an automatic approver policy. It is NOT a custody service:
 * vault keys are PLAIN private keys in Redis (or in memory). Never point real funds at it.
 */
import express, { Router, type Express } from 'express';
import type { Redis } from 'ioredis';
import pino, { type Logger } from 'pino';
import { accountRoutes } from './accounts.js';
import { API_KEY_SECONDS, hashPassword, scryptHasher, tokenHash } from './auth.js';
import { authRoutes } from './auth-routes.js';
import { approverPolicySchema, createHooks, resumeAutomation, type ApproverPolicyInput } from './automation.js';
import { bip44Routes } from './bip44.js';
import type { CallbackSettings, EmulatorContext, PasswordHasher, Revision } from './context.js';
import { deviceRoutes } from './device-routes.js';
import { createLoginLimiter, DEFAULT_LOGIN_LIMIT, type LoginLimitSettings } from './login-limit.js';
import { createHoldWatch } from './holds.js';
import { memberRoutes } from './members.js';
import type { ApiKeyRecord, Role, User } from './model.js';
import { operationRoutes } from './operations.js';
import { participantRoutes } from './participants.js';
import { policyRoutes } from './policy-routes.js';
import { problemHandler, unknownRoute } from './problem.js';
import { authorize } from './roles.js';
import { statusRoutes } from './status.js';
import { createStore, type EmulatorStore } from './store.js';
import { vaultRoutes } from './vaults.js';

export const MNG_PATH = '/custody/api/v1.0/mng';
export const LEGACY_MNG_PATH = '/casp/api/v1.0/mng';
export const EMULATOR_PATH = '/emulator/v1';

export interface CustodyEmulatorOptions {
  /** A Redis client the caller owns (not closed by the emulator); or `store`. */
  redis?: Redis;
  /** Key prefix of every record in Redis, e.g. `custody-emulator:`. */
  prefix?: string;
  /** Where the records live instead of Redis (e.g. createMemoryStore()). */
  store?: EmulatorStore;
  /** Requests without credentials act as the administrator; for tests whose connector has no API key. */
  openAccess?: boolean;
  /** The custody administrator (role Super_User), created when absent; also guards the emulator-only routes. */
  admin: { user: string; password: string };
  callback?: Partial<CallbackSettings>;
  /** Stored at start when given; otherwise the stored (or default: manual) policy stays. */
  approverPolicy?: ApproverPolicyInput;
  /** A fixed API key (e.g. for a connector configured with one), created or renewed at start. */
  apiKey?: { clientId: string; key: string; role?: Role };
  /** What the `/casp` base serves. Default 1.0.1905. */
  legacyRevision?: '1.0.1905' | '1.0.1811';
  logger?: Logger;
  /** Failed logins allowed per user name and per peer address; default DEFAULT_LOGIN_LIMIT. */
  loginLimit?: Partial<LoginLimitSettings>;
  /** The password hash logins are checked with; default scrypt (tests count its calls). */
  passwordHasher?: PasswordHasher;
  /** Milliseconds since the epoch; tests move it to expire tokens. */
  now?: () => number;
}

export interface CustodyEmulator {
  app: Express;
  ctx: EmulatorContext;
  /** Resolves once no automatic step or callback is in flight. */
  settled(): Promise<void>;
  close(): Promise<void>;
}

function mngRouter(ctx: EmulatorContext, revision: Revision): Router {
  const r = Router();
  // One guard for every route below: token and role, by the table in roles.ts.
  r.use(authorize(ctx));
  r.use(statusRoutes(ctx, revision));
  r.use(authRoutes(ctx, revision));
  for (const routes of [
    accountRoutes(ctx, revision),
    participantRoutes(ctx, revision),
    vaultRoutes(ctx, revision),
    bip44Routes(ctx, revision),
    memberRoutes(ctx),
    operationRoutes(ctx, revision),
  ])
    r.use(routes);
  return r;
}

async function seed(ctx: EmulatorContext, opts: CustodyEmulatorOptions): Promise<void> {
  const { store } = ctx;
  await store.exclusive(async () => {
    if (!(await store.get<User>('user', opts.admin.user))) {
      const admin: User = { name: opts.admin.user, ...hashPassword(opts.admin.password), role: 'Super_User', enabled: true, mustChangePassword: false };
      await store.put('user', admin.name, admin);
    }
    if (opts.approverPolicy) await store.put('meta', 'approver-policy', approverPolicySchema.parse(opts.approverPolicy));
    if (opts.apiKey) {
      const { clientId, key, role = 'Super_User' } = opts.apiKey;
      const expiresAt = ctx.now() + API_KEY_SECONDS * 1000;
      const old = await store.get<ApiKeyRecord>('apikey', clientId);
      if (old) await store.deleteToken(old.tokenHash);
      await store.putToken(tokenHash(key), { kind: 'apikey', owner: clientId, role, expiresAt });
      await store.put('apikey', clientId, { clientId, role, scope: '/mng', tokenHash: tokenHash(key), expiresAt } satisfies ApiKeyRecord);
    }
  });
}

export async function createCustodyEmulator(opts: CustodyEmulatorOptions): Promise<CustodyEmulator> {
  const logger = (opts.logger ?? pino({ level: 'silent' })).child({ component: 'custody-emulator' });
  const closing = new AbortController();
  const inFlight = new Set<Promise<unknown>>();
  const timers = new Map<NodeJS.Timeout, () => void>();
  const now = opts.now ?? Date.now;
  const track = (work: Promise<unknown>) => {
    const p = work.catch((err: unknown) => {
      if (!closing.signal.aborted) logger.error({ err }, 'emulator background work failed');
    });
    inFlight.add(p);
    void p.finally(() => inFlight.delete(p));
  };
  const store = opts.store ?? (opts.redis && opts.prefix ? createStore(opts.redis, opts.prefix, now) : undefined);
  if (!store) throw new Error('the custody emulator needs a store, or redis and prefix');
  const ctx: EmulatorContext = {
    store,
    openAccess: opts.openAccess ?? false,
    passwordHasher: opts.passwordHasher ?? scryptHasher,
    loginLimiter: createLoginLimiter({ ...DEFAULT_LOGIN_LIMIT, ...opts.loginLimit }, now),
    approverFaults: { global: {}, vaults: new Map() },
    now,
    iso: () => new Date(now()).toISOString(),
    logger,
    admin: opts.admin,
    callback: { fetch, attempts: 5, baseDelayMs: 500, timeoutMs: 10_000, ...opts.callback },
    background: {
      signal: closing.signal,
      track,
      later(ms, work) {
        if (closing.signal.aborted) return;
        // A pending timer counts as in flight, so settled() waits for automatic steps too.
        let release!: () => void;
        const waiting = new Promise<void>((resolve) => (release = resolve));
        inFlight.add(waiting);
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!closing.signal.aborted) track(work());
          release();
        }, ms);
        void waiting.then(() => inFlight.delete(waiting));
        timers.set(timer, release);
      },
    },
    hooks: undefined as unknown as EmulatorContext['hooks'],
    holds: undefined as unknown as EmulatorContext['holds'],
  };
  ctx.hooks = createHooks(ctx);
  ctx.holds = createHoldWatch(ctx);
  await seed(ctx, opts);

  const app = express();
  app.disable('x-powered-by');
  app.use(express.json({ limit: '8mb', type: ['application/json', 'application/*+json'] }));
  // 1.0.1811 and the published samples send authentication bodies form-encoded.
  app.use(express.urlencoded({ extended: false, limit: '64kb' }));
  app.use(MNG_PATH, mngRouter(ctx, '1.0.2106'));
  app.use(LEGACY_MNG_PATH, mngRouter(ctx, opts.legacyRevision ?? '1.0.1905'));
  app.use(EMULATOR_PATH, deviceRoutes(ctx));
  app.use(EMULATOR_PATH, policyRoutes(ctx));
  app.use(unknownRoute);
  app.use(problemHandler((err) => logger.error({ err }, 'emulator route failed')));

  const resumed = await resumeAutomation(ctx);
  if (resumed) logger.info({ operations: resumed }, 'resumed automatic answers of pending operations');
  // Held sign operations whose slot opened while the emulator was down go to their approvers now.
  const released = await ctx.holds.check();
  if (released) logger.info({ operations: released }, 'released held sign operations');

  return {
    app,
    ctx,
    async settled() {
      while (inFlight.size) await Promise.allSettled([...inFlight]);
    },
    async close() {
      closing.abort();
      for (const [timer, release] of timers) {
        clearTimeout(timer);
        release();
      }
      timers.clear();
      await Promise.allSettled([...inFlight]);
    },
  };
}
