import { z } from 'zod';
import { CUSTODY_EMULATOR_PREFIX } from '../../platform/redis-keys.js';
import { DEFAULT_LOGIN_LIMIT } from './login-limit.js';

/** The environment of `npm run custody-emulator` (main.ts), checked at its start; see docs/custody-emulator.md. */
export const emulatorEnv = z.object({
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
