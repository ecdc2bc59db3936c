import { randomBytes } from 'node:crypto';
import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import type { Logger } from 'pino';
import { CUSTODY_EMULATOR_PREFIX } from '../../platform/redis-keys.js';
import type { CallbackSettings } from './context.js';
import { createDirectControl, type DirectControl, type QuorumOptions } from './direct-control.js';
import { createCustodyEmulator, EMULATOR_PATH, LEGACY_MNG_PATH, MNG_PATH, type CustodyEmulator, type CustodyEmulatorOptions } from './emulator.js';
import { createMemoryStore } from './store.js';

export interface StartCustodyEmulatorOptions extends Omit<CustodyEmulatorOptions, 'redis' | 'prefix'> {
  /** A client the caller owns; or `redisUrl`, and the emulator opens and closes its own; or `store`. */
  redis?: Redis;
  redisUrl?: string;
  /** Default CUSTODY_EMULATOR_PREFIX (`custody-emulator:`). */
  prefix?: string;
  /** Default 0: any free port. */
  port?: number;
  /** Default 127.0.0.1: the emulator holds plain private keys and must not be reachable from elsewhere. */
  host?: string;
}

export interface RunningCustodyEmulator {
  /** The 1.0.2106 `{mng}` base: `{baseUrl}/custody/api/v1.0/mng`. */
  url: string;
  /** The older `{mng}` base: `{baseUrl}/casp/api/v1.0/mng`. */
  legacyUrl: string;
  /** The emulator-only routes: `{baseUrl}/emulator/v1` (admin credentials, HTTP Basic). */
  emulatorUrl: string;
  baseUrl: string;
  port: number;
  emulator: CustodyEmulator;
  stop(): Promise<void>;
}

export async function startCustodyEmulator(opts: StartCustodyEmulatorOptions): Promise<RunningCustodyEmulator> {
  if (!opts.store && !opts.redis && !opts.redisUrl) throw new Error('startCustodyEmulator needs redis, redisUrl or store');
  const ownRedis = opts.store || opts.redis || !opts.redisUrl ? undefined : new Redis(opts.redisUrl, { maxRetriesPerRequest: 1 });
  const redis = opts.redis ?? ownRedis;
  try {
    const emulator = await createCustodyEmulator({ ...opts, redis, prefix: opts.prefix ?? CUSTODY_EMULATOR_PREFIX });
    const host = opts.host ?? '127.0.0.1';
    const server = await new Promise<Server>((resolve, reject) => {
      const s = emulator.app.listen(opts.port ?? 0, host, (err?: Error) => (err ? reject(err) : resolve(s)));
    });
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : (opts.port ?? 0);
    const baseUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
    return {
      url: `${baseUrl}${MNG_PATH}`,
      legacyUrl: `${baseUrl}${LEGACY_MNG_PATH}`,
      emulatorUrl: `${baseUrl}${EMULATOR_PATH}`,
      baseUrl,
      port,
      emulator,
      async stop() {
        await emulator.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
        ownRedis?.disconnect();
      },
    };
  } catch (e) {
    ownRedis?.disconnect();
    throw e;
  }
}

export interface StartInMemoryCustodyEmulatorOptions {
  /** Where callbacks go and how hard they are pushed; no HMAC headers without `secret`, as the real service sends them. */
  callback?: Partial<CallbackSettings>;
  /** The bots of each vault made by `control.createVault`. Default: 2 of 3, 100 ms apart. */
  quorum?: QuorumOptions;
  /** When set, every management call but `GET {mng}/status` needs `Authorization: Bearer <apiKey>`; otherwise calls without credentials are let in. */
  apiKey?: string;
  /** The emulator's administrator (emulator-only routes); default `so` with a random password. */
  admin?: { user: string; password: string };
  logger?: Logger;
  port?: number;
}

export interface RunningInMemoryCustodyEmulator extends RunningCustodyEmulator {
  admin: { user: string; password: string };
  control: DirectControl;
}

/**
 * A custody emulator with its records in this process's memory, controlled directly (see
 * direct-control.ts): what tests, the bench and the fault suite run against. Bots approve every
 * sign request of the vaults `control.createVault` makes, `quorum.required` of them.
 */
export async function startInMemoryCustodyEmulator(opts: StartInMemoryCustodyEmulatorOptions = {}): Promise<RunningInMemoryCustodyEmulator> {
  const quorum = opts.quorum ?? { approvers: 3, required: 2, approvalDelayMs: 100 };
  const admin = opts.admin ?? { user: 'so', password: randomBytes(16).toString('hex') };
  const store = createMemoryStore();
  const running = await startCustodyEmulator({
    store,
    admin,
    port: opts.port,
    logger: opts.logger,
    callback: opts.callback,
    openAccess: !opts.apiKey,
    apiKey: opts.apiKey ? { clientId: 'connector', key: opts.apiKey } : undefined,
    approverPolicy: { autoActivate: true, autoJoin: true, approve: 'quorum', delayMs: quorum.approvalDelayMs },
  });
  return { ...running, admin, control: createDirectControl(running.emulator, store, quorum) };
}
