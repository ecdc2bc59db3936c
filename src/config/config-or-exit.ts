import { families } from '../../adaptors/index.js';
import { VERSION } from '../version.js';
import { ConfigError, loadConfig, type Config } from './load-config.js';

/** Loads the configuration for an entry point; on problems prints them all and exits 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig(process.env, families, VERSION);
  } catch (e) {
    if (e instanceof ConfigError) {
      process.stderr.write(`${e.message}\n`);
      process.exit(1);
    }
    throw e;
  }
}
