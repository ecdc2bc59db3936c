import type { Server } from 'node:http';
import { Redis } from 'ioredis';
import { CUSTODY_EMULATOR_PREFIX } from '../../platform/redis-keys.js';
import { createCustodyEmulator, EMULATOR_PATH, LEGACY_MNG_PATH, MNG_PATH, type CustodyEmulator, type CustodyEmulatorOptions } from './emulator.js';

export interface StartCustodyEmulatorOptions extends Omit<CustodyEmulatorOptions, 'redis' | 'prefix'> {
  /** A client the caller owns; or `redisUrl`, and the emulator opens and closes its own. */
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
  if (!opts.redis && !opts.redisUrl) throw new Error('startCustodyEmulator needs redis or redisUrl');
  const ownRedis = opts.redis ? undefined : new Redis(opts.redisUrl as string, { maxRetriesPerRequest: 1 });
  const redis = opts.redis ?? (ownRedis as Redis);
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
