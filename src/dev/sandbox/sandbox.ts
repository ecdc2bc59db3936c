import { randomBytes } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../../platform/config-error.js';
import { resolveLedgers, type Config } from '../../config/load-config.js';
import type { LedgerFamily, LocalNodeMining } from '../../ledger/adaptor.js';
import { createLogger } from '../../platform/logger.js';
import { ensureRedis } from '../local-redis.js';
import { SANDBOX_APPROVAL_DELAY_MS, sandboxCustodyPassword, startSandboxCustody, type SandboxCustody } from './sandbox-custody.js';
import { custodyEmulatorPrefix } from '../../platform/redis-keys.js';
import { freshSandboxState } from './sandbox-state.js';
import { prettyLogDestination, printBanner, sandboxLogFormat } from './sandbox-log.js';
import type { DestinationStream } from 'pino';
import { WebhookSink } from './webhook-sink.js';

/**
 * The sandbox profile: with no configuration, the service runs against local nodes it
 * starts itself, so the whole loop works on a laptop: the development node of every ledger
 * family that has one (`LedgerFamily.localNode`: anvil with a demo ERC-20, bcoin regtest behind
 * an Esplora facade, the Stellar ledger simulator, LiteSVM), each with its faucet, the custody
 * emulator, and a local Redis if none answers. Nothing here is used outside the sandbox.
 */
export interface Faucet {
  /** Sends `units` base units of `asset` to `address`. */
  (address: string, asset: string, units: bigint): Promise<string>;
}

export interface Sandbox {
  config: Config;
  /** Lines to show the user: URLs, the API key, where things are. */
  banner: string[];
  /** Where the sandbox's loggers write: pino-pretty in pretty mode, else stdout (undefined: JSON lines). */
  logDestination?: DestinationStream;
  /** Prints the banner with `more` lines, after the start-up logs: on stdout when pretty, else on stderr. */
  printBanner(more: readonly string[]): void;
  custody: SandboxCustody;
  faucets: Record<string, Faucet>;
  /** Block production controls of the nodes that offer them (`LocalLedgerNode.mining`), by ledger id. */
  mining: Record<string, LocalNodeMining>;
  /** Where the sandbox's webhook subscriptions can point (`/sandbox/webhook-sink`). */
  webhookSink: WebhookSink;
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
    // Before anything of the sandbox writes: a prefix of production data is refused with
    // nothing written, and the data of an earlier sandbox start goes, as its nodes did.
    const cleared = await freshSandboxState(redis.url, config.keyPrefix);
    if (cleared) log(`sandbox: ${cleared} Redis keys of the previous start under '${config.keyPrefix}:' deleted (its nodes are gone)`);

    // Families that bring their own development node start it here; none is named.
    const localNodes = [];
    for (const family of families) {
      if (!family.localNode) continue;
      const node = await family.localNode();
      stops.push(node.stop);
      localNodes.push(node);
    }

    const logFormat = sandboxLogFormat(config.logFormat);
    const logDestination = logFormat === 'pretty' ? prettyLogDestination() : undefined;

    const publicUrl = config.publicUrl ?? `http://127.0.0.1:${config.port}`;
    // Callbacks without HMAC, as the custody service sends them, unless CALLBACK_SECRET is set.
    const callbackSecret = config.callbackSecret;
    const custodyAdmin = { user: 'so', password: sandboxCustodyPassword(SANDBOX_DIR, config.sandboxCustodyPassword) };
    const custody = await startSandboxCustody({
      redisUrl: redis.url,
      prefix: custodyEmulatorPrefix(config.keyPrefix),
      port: config.sandboxCustodyPort,
      admin: custodyAdmin,
      callback: { baseUrl: publicUrl, secret: callbackSecret },
      logger: createLogger(config.logLevel, [...config.secrets, custodyAdmin.password], logDestination),
    });
    stops.push(custody.stop);

    const problems: string[] = [];
    const ledgerConfigs = resolveLedgers(Object.fromEntries(localNodes.map((n) => [n.ledgerId, n.options])), families, problems, []);
    if (problems.length) throw new ConfigError(problems);

    // Each node's faucet sends what its ledger's demo setup holds, and says which assets when asked for another.
    const faucets: Record<string, Faucet> = Object.fromEntries(localNodes.map((n) => [n.ledgerId, n.faucet] as const));
    const mining: Record<string, LocalNodeMining> = Object.fromEntries(localNodes.flatMap((n) => (n.mining ? [[n.ledgerId, n.mining] as const] : [])));

    const apiKey = config.apiKeys ? undefined : (config.sandboxApiKey ?? `sbx_${randomBytes(24).toString('hex')}`);
    const apiKeys = config.apiKeys ?? [{ name: 'sandbox', key: apiKey, scopes: ['read', 'withdraw', 'admin'] as ('read' | 'withdraw' | 'admin')[] }];
    if (apiKey) {
      mkdirSync(SANDBOX_DIR, { recursive: true });
      writeFileSync(path.join(SANDBOX_DIR, 'api-key'), `${apiKey}\n`, { mode: 0o600 });
    }
    const host = process.env.HOST ? config.host : '127.0.0.1';
    const banner = [
      'SANDBOX profile: local development nodes and a custody emulator, not for real funds.',
      ...localNodes.map((n) => `  ${n.description}`),
      `  custody     custody EMULATOR ${custody.running.url} (2 of 3 automatic approvals, ${SANDBOX_APPROVAL_DELAY_MS / 1000} s apart; admin ${custodyAdmin.user}, password in ${SANDBOX_DIR}/custody-password)`,
      `              device routes ${custody.running.emulatorUrl} (HTTP Basic, the same admin); callbacks ${callbackSecret ? 'with' : 'without'} HMAC`,
      `  redis       ${redis.url}`,
      apiKey ? `  API key (all scopes): ${apiKey}   (also in ${SANDBOX_DIR}/api-key)` : '  API keys: from API_KEYS',
    ];
    return {
      config: {
        ...config,
        host,
        redisUrl: redis.url,
        ledgerConfigs,
        apiKeys,
        custodyUrl: custody.running.url,
        // The connector logs in to the emulator by user and password, renewing its tokens.
        custodyUser: custodyAdmin.user,
        custodyPassword: custodyAdmin.password,
        custodyApiKey: undefined,
        callbackSecret,
        publicUrl,
        inProcessWorker: config.inProcessWorker ?? true,
        confirmPollMs: Math.min(config.confirmPollMs, 1000),
        // A node's own deposit depth (one that can reorganise a block before it counts), unless DEPOSIT_CONFIRMATIONS says otherwise.
        depositConfirmations: {
          ...Object.fromEntries(localNodes.flatMap((n) => (n.depositConfirmations ? [[n.ledgerId, n.depositConfirmations] as const] : []))),
          ...config.depositConfirmations,
        },
        // Every secret the sandbox made up is censored like a configured one.
        secrets: [...config.secrets, custodyAdmin.password, ...(apiKey ? [apiKey] : [])],
      },
      banner,
      logDestination,
      printBanner: (more) => printBanner([...banner, ...more], logFormat),
      custody,
      faucets,
      mining,
      webhookSink: new WebhookSink(),
      stop,
    };
  } catch (e) {
    await stop();
    throw e;
  }
}
