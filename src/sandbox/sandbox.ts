import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, resolveLedgers, type Config } from '../config/load-config.js';
import type { LedgerFamily } from '../ledger/adaptor.js';
import { DevChainFunder } from './dev-chain.js';
import { startAnvil } from './local-anvil.js';
import { ensureRedis } from './local-redis.js';

/**
 * The sandbox profile: with no configuration, the service runs against local nodes it
 * starts itself (a real anvil EVM chain with a demo ERC-20, a local Redis if none answers),
 * so every route works on a laptop. Nothing here is used outside the sandbox.
 */
export interface Sandbox {
  config: Config;
  /** Lines to show the user: URLs, the API key, where things are. */
  banner: string[];
  /** Values tests and scripts may want (node URLs, demo token). */
  info: Record<string, unknown>;
  stop(): Promise<void>;
}

export const SANDBOX_DIR = '.sandbox';

export async function startSandbox(config: Config, families: readonly LedgerFamily[], log: (m: string) => void): Promise<Sandbox> {
  const stops: (() => Promise<void>)[] = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch(() => undefined);
  };
  try {
    const redis = await ensureRedis(config.redisUrl, { log });
    stops.push(redis.stop);

    const anvil = await startAnvil();
    stops.push(anvil.stop);
    const funder = new DevChainFunder(anvil.url);
    const token = await funder.deployDemoToken();
    funder.destroy();

    const problems: string[] = [];
    const ledgerConfigs = resolveLedgers(
      { ethdev: { rpcUrl: anvil.url, tokens: [token], confirmations: 1 } },
      families,
      problems,
      [],
    );
    if (problems.length) throw new ConfigError(problems);

    const apiKey = config.apiKeys ? undefined : (process.env.SANDBOX_API_KEY ?? `sbx_${randomBytes(24).toString('hex')}`);
    const apiKeys = config.apiKeys ?? [{ name: 'sandbox', key: apiKey, scopes: ['read', 'withdraw', 'admin'] as ('read' | 'withdraw' | 'admin')[] }];
    if (apiKey) {
      mkdirSync(SANDBOX_DIR, { recursive: true });
      writeFileSync(path.join(SANDBOX_DIR, 'api-key'), `${apiKey}\n`, { mode: 0o600 });
    }
    const host = process.env.HOST ? config.host : '127.0.0.1';
    const banner = [
      'SANDBOX profile: local development nodes, not for real funds.',
      `  ethdev  anvil JSON-RPC ${anvil.url} (chain 31337), demo ERC-20 ${token.symbol} at ${token.contract}`,
      `  redis   ${redis.url}`,
      apiKey ? `  API key (all scopes): ${apiKey}   (also in ${SANDBOX_DIR}/api-key)` : '  API keys: from API_KEYS',
    ];
    return {
      config: { ...config, host, redisUrl: redis.url, ledgerConfigs, apiKeys },
      banner,
      info: { anvilUrl: anvil.url, token, apiKey },
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
