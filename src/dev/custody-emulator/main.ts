/**
 * `npm run custody-emulator`: the custody emulator on its own, for development only (it
 * holds plain private keys). Configuration comes from the environment; see
 * docs/custody-emulator.md.
 */
import { createLogger } from '../../platform/logger.js';
import { exitOnStartFailure, onShutdown } from '../../platform/process-lifecycle.js';
import { emulatorEnv } from './env.js';
import { startCustodyEmulator } from './start.js';

async function main(): Promise<void> {
  const parsed = emulatorEnv.safeParse(process.env);
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
      ? {
          autoActivate: auto !== 'none',
          autoJoin: auto !== 'none',
          approve: auto,
          ...(e.CUSTODY_EMULATOR_APPROVAL_DELAY_MS !== undefined ? { delayMs: e.CUSTODY_EMULATOR_APPROVAL_DELAY_MS } : {}),
        }
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
