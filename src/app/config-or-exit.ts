import type { Redis } from 'ioredis';
import { families } from '../../adaptors/index.js';
import { VERSION } from '../platform/version.js';
import { ConfigError } from '../platform/config-error.js';
import { loadConfig, type Config } from '../config/load-config.js';
import { claimProfile } from '../config/profile-marker.js';

function exitWith(e: ConfigError): never {
  process.stderr.write(`${e.message}\n`);
  process.exit(1);
}

/** Loads the configuration for an entry point; on problems prints them all and exits 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig(process.env, families, VERSION);
  } catch (e) {
    if (e instanceof ConfigError) exitWith(e);
    throw e;
  }
}

/** Exits 1 with the problems of a configuration error (a prefix the sandbox refuses, say); rethrows anything else. */
export function exitOnConfigError(e: unknown): never {
  if (e instanceof ConfigError) exitWith(e);
  throw e;
}

/**
 * Refuses (exit 1) a key prefix that holds the other profile's data (see `claimProfile`),
 * after `cleanup` (local nodes the sandbox started must not outlive the process).
 */
export async function claimProfileOrExit(redis: Redis, prefix: string, sandbox: boolean, cleanup?: () => Promise<void>): Promise<void> {
  try {
    await claimProfile(redis, prefix, sandbox ? 'sandbox' : 'production');
  } catch (e) {
    await cleanup?.().catch(() => undefined);
    if (e instanceof ConfigError) exitWith(e);
    throw e;
  }
}
