/**
 * `npm run custody-emulator`: the custody emulator on its own, for development only (it
 * holds plain private keys). Configuration comes from the environment; see
 * docs/custody-emulator.md.
 */
import { z } from 'zod';
import { createLogger } from '../../platform/logger.js';
import { CUSTODY_EMULATOR_PREFIX } from '../../platform/redis-keys.js';
import { exitOnStartFailure, onShutdown } from '../../platform/process-lifecycle.js';
import { DEFAULT_LOGIN_LIMIT } from './login-limit.js';
import { startCustodyEmulator } from './start.js';

const env = z.object({
  CUSTODY_EMULATOR_PORT: z.coerce.number().int().min(0).max(65_535).default(8090),
  CUSTODY_EMULATOR_HOST: z.string().min(1).default('127.0.0.1'),
  REDIS_URL: z.string().min(1).default('redis://127.0.0.1:6379'),
  CUSTODY_EMULATOR_REDIS_PREFIX: z.string().min(1).default(CUSTODY_EMULATOR_PREFIX),
  CUSTODY_EMULATOR_ADMIN_USER: z.string().min(1).default('so'),
  CUSTODY_EMULATOR_ADMIN_PASSWORD: z.string().min(8, 'set CUSTODY_EMULATOR_ADMIN_PASSWORD (8 characters or more)'),
  CUSTODY_EMULATOR_CALLBACK_URL: z.url({ protocol: /^https?$/ }).optional(),
  CUSTODY_EMULATOR_CALLBACK_SECRET: z.string().min(1).optional(),
  CUSTODY_EMULATOR_API_KEY: z.string().min(16).optional(),
  CUSTODY_EMULATOR_AUTO_APPROVE: z.enum(['none', 'quorum', 'all']).optional(),
  CUSTODY_EMULATOR_APPROVAL_DELAY_MS: z.coerce.number().int().min(0).max(3_600_000).optional(),
  CUSTODY_EMULATOR_LOGIN_FAILURES_PER_USER: z.coerce.number().int().min(0).max(1_000_000).default(DEFAULT_LOGIN_LIMIT.perUser),
  CUSTODY_EMULATOR_LOGIN_FAILURES_PER_PEER: z.coerce.number().int().min(0).max(1_000_000).default(DEFAULT_LOGIN_LIMIT.perPeer),
  CUSTODY_EMULATOR_LOGIN_FAILURE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(86_400).default(DEFAULT_LOGIN_LIMIT.windowSeconds),
  CUSTODY_EMULATOR_LEGACY_REVISION: z.enum(['1.0.1905', '1.0.1811']).default('1.0.1905'),
  LOG_LEVEL: z.string().default('info'),
});

async function main(): Promise<void> {
  const parsed = env.safeParse(process.env);
  if (!parsed.success) {
    process.stderr.write(`custody emulator configuration:\n${parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`).join('\n')}\n`);
    process.exit(1);
  }
  const e = parsed.data;
  const secrets = [e.CUSTODY_EMULATOR_ADMIN_PASSWORD, e.CUSTODY_EMULATOR_CALLBACK_SECRET, e.CUSTODY_EMULATOR_API_KEY].filter((s): s is string => !!s);
  const logger = createLogger(e.LOG_LEVEL, secrets);
  const auto = e.CUSTODY_EMULATOR_AUTO_APPROVE;
  const running = await startCustodyEmulator({
    redisUrl: e.REDIS_URL,
    prefix: e.CUSTODY_EMULATOR_REDIS_PREFIX,
    port: e.CUSTODY_EMULATOR_PORT,
    host: e.CUSTODY_EMULATOR_HOST,
    admin: { user: e.CUSTODY_EMULATOR_ADMIN_USER, password: e.CUSTODY_EMULATOR_ADMIN_PASSWORD },
    callback: { baseUrl: e.CUSTODY_EMULATOR_CALLBACK_URL, secret: e.CUSTODY_EMULATOR_CALLBACK_SECRET },
    apiKey: e.CUSTODY_EMULATOR_API_KEY ? { clientId: 'connector', key: e.CUSTODY_EMULATOR_API_KEY } : undefined,
    // Hands-free when asked: participants activate and join by themselves, and approve.
    approverPolicy: auto
      ? { autoActivate: auto !== 'none', autoJoin: auto !== 'none', approve: auto, ...(e.CUSTODY_EMULATOR_APPROVAL_DELAY_MS !== undefined ? { delayMs: e.CUSTODY_EMULATOR_APPROVAL_DELAY_MS } : {}) }
      : undefined,
    legacyRevision: e.CUSTODY_EMULATOR_LEGACY_REVISION,
    loginLimit: {
      perUser: e.CUSTODY_EMULATOR_LOGIN_FAILURES_PER_USER,
      perPeer: e.CUSTODY_EMULATOR_LOGIN_FAILURES_PER_PEER,
      windowSeconds: e.CUSTODY_EMULATOR_LOGIN_FAILURE_WINDOW_SECONDS,
    },
    logger,
  });
  logger.warn('custody emulator: a development tool holding PLAIN private keys; never a custody service');
  logger.info({ mng: running.url, legacy: running.legacyUrl, emulator: running.emulatorUrl }, 'custody emulator listening');
  onShutdown(logger, 'custody emulator', running.stop);
}

main().catch(exitOnStartFailure);
