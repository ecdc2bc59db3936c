import { z } from 'zod';
import { ipAddressList, listenHost, trustProxySetting } from './address-schemas.js';
import { httpUrl, redisUrl } from '../platform/url-schemas.js';
import { apiKeySchema, apiKeyText, bool, depositLedgerList, int, json } from './env-values.js';

/**
 * Declarative environment configuration: one entry per variable, with its schema,
 * default, whether it is secret (its value is censored in logs) and what it means.
 * The configuration table in docs/configuration.md lists the same entries.
 */
export interface EnvEntry<T = unknown> {
  env: string;
  schema: z.ZodType<T>;
  description: string;
  default?: string;
  sensitive?: boolean;
}

export const ENV = {
  port: { env: 'PORT', schema: int(0, 65535), default: '8080', description: 'HTTP port of the wallet layer.' },
  host: {
    env: 'HOST',
    schema: listenHost(),
    default: '0.0.0.0',
    description: 'Interface to listen on: an IP address (`0.0.0.0`, `::`) or a host name, without scheme, port or path.',
  },
  redisUrl: {
    env: 'REDIS_URL',
    schema: redisUrl(),
    default: 'redis://127.0.0.1:6379',
    sensitive: true,
    description:
      'Redis for the queue, operations, vaults and reservations. Needs `maxmemory-policy noeviction`; AOF on in production. A Redis Cluster: `redis+cluster://host:port,host:port` with a hash-tagged REDIS_PREFIX.',
  },
  keyPrefix: {
    env: 'REDIS_PREFIX',
    schema: z.string().regex(/^[A-Za-z0-9:{}_-]{1,64}$/, 'must be 1 to 64 letters, digits or : { } _ -'),
    default: 'byow',
    description:
      'Prefix of every Redis key and BullMQ queue (sandbox profile: `byow-sandbox`). A prefix belongs to one profile: a start against data of the other is refused. For Redis Cluster use a hash tag, e.g. `{byow}`.',
  },
  logLevel: {
    env: 'LOG_LEVEL',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
    default: 'info',
    description: 'pino log level.',
  },
  logFormat: {
    env: 'LOG_FORMAT',
    schema: z.enum(['json', 'pretty']),
    description:
      'Log lines: `json` (one JSON object per line), or `pretty` (one readable line per event; the sandbox profile only, whose development dependencies have pino-pretty). Unset: pretty in the sandbox when stdout is a terminal, JSON otherwise.',
  },
  apiKeys: {
    env: 'API_KEYS',
    // With no key every route that needs one answers 401 for good: refused at start instead.
    schema: json(z.array(apiKeySchema).min(1, 'must list at least one key')),
    sensitive: true,
    description:
      'JSON array of at least one `{name, sha256 | key, scopes}`; scopes among `read` (balances), `withdraw`, `admin` (vault registry, dashboard). Prefer `sha256` (hex SHA-256 of the key).',
  },
  ledgers: {
    env: 'LEDGERS',
    schema: json(
      z.record(z.string().regex(/^[a-z0-9_-]{2,32}$/, 'a ledger id must be 2-32 lower-case letters, digits, _ or -'), z.record(z.string(), z.unknown())),
    ),
    sensitive: true,
    description: 'JSON object: ledger id → options (`family` for ids that are not built in). Unset: the sandbox profile. See "Ledgers" below.',
  },
  ledgersFile: { env: 'LEDGERS_FILE', schema: z.string().min(1), description: 'Path of a JSON file with the same content as `LEDGERS`.' },
  sandbox: {
    env: 'SANDBOX',
    schema: bool,
    description: 'Force (`true`) or forbid (`false`) the sandbox profile. Default: sandbox when no ledgers are configured.',
  },
  sandboxApiKey: {
    env: 'SANDBOX_API_KEY',
    schema: apiKeyText,
    sensitive: true,
    description: 'Sandbox profile: its API key (all scopes), when you want a fixed one; default a random key, written to `.sandbox/api-key`.',
  },
  sandboxCustodyPort: { env: 'SANDBOX_CUSTODY_PORT', schema: int(1, 65535), default: '8090', description: 'Sandbox profile: port of its custody emulator.' },
  sandboxCustodyPassword: {
    env: 'SANDBOX_CUSTODY_PASSWORD',
    schema: z.string().min(1),
    sensitive: true,
    description:
      "Sandbox profile: password of its custody emulator's administrator `so` (the connector logs in with it); default the one kept in `.sandbox/custody-password`, made at the first start.",
  },
  openBodyLimit: {
    env: 'OPEN_BODY_LIMIT',
    schema: z.string().regex(/^\d+(b|kb|mb)$/, 'must be a size such as 64kb or 1mb'),
    default: '64kb',
    description:
      'Largest body of a route that needs no API key (BODY_LIMIT is for the routes behind one). The signing callback has its own limit, and address-from-publickey, when open, takes MAX_KEYS_PER_REQUEST keys.',
  },
  callbackBodyLimit: {
    env: 'CALLBACK_BODY_LIMIT',
    schema: z.string().regex(/^\d+(b|kb|mb)$/, 'must be a size such as 512kb or 2mb'),
    default: '2mb',
    description:
      'Largest body of the signing callback, read only once the caller passed CALLBACK_ALLOWED_IPS. A Bitcoin withdrawal carries one key, digest and signature per input, about 380 bytes each: 1,000 inputs (the default maxInputs) weigh about 0.4 MB; raise it for a maxInputs above 4,000.',
  },
  httpHeadersTimeoutMs: {
    env: 'HTTP_HEADERS_TIMEOUT_MS',
    schema: int(100, 600_000),
    default: '20000',
    description: "Time a client has to send the request line and headers; a slower one is cut (408). Applies to the API and the worker's health server.",
  },
  httpRequestTimeoutMs: {
    env: 'HTTP_REQUEST_TIMEOUT_MS',
    schema: int(100, 3_600_000),
    default: '60000',
    description: 'Time a client has to send a whole request, body included; a slower one is cut (408). At least HTTP_HEADERS_TIMEOUT_MS.',
  },
  httpKeepAliveTimeoutMs: {
    env: 'HTTP_KEEP_ALIVE_TIMEOUT_MS',
    schema: int(100, 600_000),
    default: '5000',
    description:
      "An idle keep-alive connection is closed after this long. Behind a load balancer that reuses connections, set it above the balancer's idle timeout.",
  },
  httpMaxConnections: {
    env: 'HTTP_MAX_CONNECTIONS',
    schema: int(0, 1_000_000),
    default: '2048',
    description: 'Open connections a server process accepts at once; further ones are closed as they arrive. 0 = no cap.',
  },
  bodyLimit: {
    env: 'BODY_LIMIT',
    schema: z.string().regex(/^\d+(b|kb|mb)$/, 'must be a size such as 512kb or 4mb'),
    default: '4mb',
    description:
      'Largest request body of a route behind an API key (see OPEN_BODY_LIMIT and CALLBACK_BODY_LIMIT for the others); a body is read only once its route is known and its caller authenticated.',
  },
  maxKeysPerRequest: {
    env: 'MAX_KEYS_PER_REQUEST',
    schema: int(1, 100_000),
    default: '10000',
    description: 'Largest `keys` batch of address-from-publickey.',
  },
  openRoutesAnonymous: {
    env: 'OPEN_ROUTES_ANONYMOUS',
    schema: bool,
    description:
      'Serve address-from-publickey and the address balance route without an API key, as the custody API spec shows them (`true`), or require a key with the `read` scope (`false`). Default: open in the sandbox, a key required otherwise.',
  },
  openRoutesRatePerMinute: {
    env: 'OPEN_ROUTES_RATE_PER_MINUTE',
    schema: int(0, 1_000_000),
    default: '120',
    description:
      'Requests per minute each client (its API key, else its peer address) may send to address-from-publickey and the balance routes; beyond it they answer 429 with Retry-After. 0 turns the limit off.',
  },
  openRoutesBurst: {
    env: 'OPEN_ROUTES_BURST',
    schema: int(1, 1_000_000),
    default: '30',
    description: 'Requests a client may send to those routes at once after being idle (the token bucket size).',
  },
  authFailuresPerMinute: {
    env: 'AUTH_FAILURES_PER_MINUTE',
    schema: int(0, 1_000_000),
    default: '10',
    description:
      'Failed authentications (unknown API key, refused dashboard login) per minute that each client address, and each key prefix (its first 8 characters), may make; beyond them every attempt from it answers 429 with Retry-After until the bucket refills. 0 turns the throttle off.',
  },
  authFailuresBurst: {
    env: 'AUTH_FAILURES_BURST',
    schema: int(1, 1_000_000),
    default: '20',
    description: 'Failed authentications a client address or key prefix may make at once before the throttle answers 429 (the token bucket size).',
  },
  deriveThreads: {
    env: 'DERIVE_THREADS',
    schema: int(0, 64),
    description:
      'Worker threads of the API process that derive address-from-publickey batches, so the event loop stays free for other requests (default: the number of cores minus one, at least 1). 0 derives on the main thread in 8 ms time slices.',
  },
  bip44GapLimit: { env: 'BIP44_GAP_LIMIT', schema: int(1, 1000), default: '20', description: 'Unused addresses in a row that end a BIP44 scan.' },
  healthTimeoutMs: {
    env: 'HEALTH_TIMEOUT_MS',
    schema: int(100, 60_000),
    default: '3000',
    description: 'Time each dependency check of `/status` may take.',
  },
  healthCacheMs: {
    env: 'HEALTH_CACHE_MS',
    schema: int(0, 60_000),
    default: '1500',
    description:
      'How long the answer of a dependency check (Redis, each ledger node, the custody service) is reused by the status routes. Concurrent status calls always share one check under way; 0 = no reuse after it ends.',
  },
  custodyUrl: {
    env: 'CUSTODY_URL',
    schema: httpUrl(),
    description:
      'Management API base of the custody service (`{base}/custody/api/v1.0/mng`; older deployments `/casp/api/v1.0/mng`). Sandbox: the built-in custody emulator.',
  },
  custodyApiKey: {
    env: 'CUSTODY_API_KEY',
    schema: z.string().min(1),
    sensitive: true,
    description: 'Bearer API key for the custody service (keys live one year). Or use CUSTODY_USER and CUSTODY_PASSWORD.',
  },
  custodyUser: {
    env: 'CUSTODY_USER',
    schema: z.string().min(1),
    sensitive: true,
    description: 'Custody user name: the connector logs in for 20-minute access tokens and renews them before they expire. Needs CUSTODY_PASSWORD.',
  },
  custodyPassword: { env: 'CUSTODY_PASSWORD', schema: z.string().min(1), sensitive: true, description: 'Password of CUSTODY_USER.' },
  custodyClientId: {
    env: 'CUSTODY_CLIENT_ID',
    schema: z.string().min(1),
    default: 'byow-adaptor',
    description: '`client_id` sent when logging in with CUSTODY_USER.',
  },
  publicUrl: {
    env: 'PUBLIC_URL',
    schema: httpUrl(),
    description: 'Base URL at which the custody service reaches this service; sent as `callbackUrl` in sign requests when set.',
  },
  callbackSecret: {
    env: 'CALLBACK_SECRET',
    schema: z.string().min(16),
    sensitive: true,
    description:
      'Shared secret of an HMAC the callback must carry (`X-Callback-Timestamp`, `X-Callback-Signature: sha256=…`). The custody service itself sends none: set it only when a proxy in front adds it. Unset: callbacks need no HMAC.',
  },
  callbackToleranceSeconds: {
    env: 'CALLBACK_TOLERANCE_SECONDS',
    schema: int(1, 3600),
    default: '300',
    description: 'How far a callback timestamp may be from now.',
  },
  callbackAllowedIps: {
    env: 'CALLBACK_ALLOWED_IPS',
    schema: ipAddressList(),
    description:
      "Comma-separated IP addresses of the peers allowed to call the callback (the custody service's, or the mTLS proxy's); no ranges or host names.",
  },
  trustProxy: {
    env: 'TRUST_PROXY',
    schema: trustProxySetting(),
    default: 'false',
    description:
      'Proxies in front of the service whose X-Forwarded-For is believed: a hop count (`1`), or comma-separated addresses and CIDR ranges (`10.0.0.0/8`, `loopback`, `uniquelocal`). The client address it yields is what the rate limits, the failed-authentication throttle, the callback allow-list and the logs use. `false`: the peer address, X-Forwarded-For ignored.',
  },
  reconcileAfterSeconds: {
    env: 'RECONCILE_AFTER_SECONDS',
    schema: int(1, 86_400 * 7),
    default: '120',
    description: 'A withdrawal with no callback this long after its sign request is looked up at the custody service.',
  },
  signTimeoutSeconds: {
    env: 'SIGN_TIMEOUT_SECONDS',
    schema: int(1, 86_400 * 30),
    default: '86400',
    description:
      'A withdrawal not signed by the quorum this long after its creation has its sign operation canceled at the custody service, then ends FAILED and frees its nonce, sequence or coins.',
  },
  idempotencyClaimSeconds: {
    env: 'IDEMPOTENCY_CLAIM_SECONDS',
    schema: int(5, 3600),
    default: '120',
    description:
      'How long an Idempotency-Key whose request has not finished answers 409 ERR_IDEMPOTENCY_IN_PROGRESS; then a retry finds or makes the withdrawal. Keep it above the longest a withdrawal request takes.',
  },
  reconcileIntervalSeconds: { env: 'RECONCILE_INTERVAL_SECONDS', schema: int(1, 3600), default: '30', description: 'How often reconciliation runs.' },
  confirmPollMs: {
    env: 'CONFIRM_POLL_MS',
    schema: int(50, 600_000),
    default: '5000',
    description:
      'Interval between confirmation checks of a broadcast transaction; a check that fails (node down, 429) is retried without end, doubling from 1 s to at most 5 minutes.',
  },
  depositPollMs: {
    env: 'DEPOSIT_POLL_MS',
    schema: int(100, 600_000),
    default: '2000',
    description:
      'How often the deposit scanner of each ledger with a deposit source looks for new blocks; a scan that is behind goes on at once; a node that does not answer is waited for (shown on /status).',
  },
  depositReorgWindow: {
    env: 'DEPOSIT_REORG_WINDOW',
    schema: int(2, 100_000),
    default: '200',
    description:
      'Blocks (ledgers, slots) whose hashes the deposit scanner keeps to undo a reorganisation; one deeper stops the scan of that ledger with an error on /status. Keep it above every ledger’s confirmations.',
  },
  depositStart: {
    env: 'DEPOSIT_START',
    schema: json(z.record(z.string(), z.number().int().min(0))),
    description:
      'Where a ledger’s first deposit scan starts, as JSON of ledger id → block height (the scan begins after it): `{"eth":21000000}`. A ledger not named starts at its tip when first scanned. Read once: a ledger with a cursor goes on from it.',
  },
  depositConfirmations: {
    env: 'DEPOSIT_CONFIRMATIONS',
    schema: json(z.record(z.string(), z.number().int().min(1).max(100_000))),
    description:
      'How deep a deposit’s block must be before it is CONFIRMED, per ledger, when not the ledger’s `confirmations` (which withdrawals use): JSON of ledger id → blocks, `{"eth":12}`. Keep it under DEPOSIT_REORG_WINDOW.',
  },
  depositLedgers: {
    env: 'DEPOSIT_LEDGERS',
    schema: depositLedgerList,
    description:
      'The ledgers whose deposits this process scans: comma-separated ledger ids (`eth,btc`), or `none` for no scanning. Unset: every configured ledger with a deposit source. A worker makes no scan schedule and no scanner for a ledger left out, and `/status` shows `deposits:{ledgerId}` only for the ones it scans; a listed ledger without a deposit source stops the start, naming those that have one.',
  },
  stuckAfterSeconds: {
    env: 'STUCK_AFTER_SECONDS',
    schema: int(1, 86_400 * 30),
    default: '600',
    description: 'A broadcast transaction not mined this long after it was sent is marked `stuck` on its withdrawal (with the reason the node suggests).',
  },
  stuckAfterBlocks: {
    env: 'STUCK_AFTER_BLOCKS',
    schema: int(0, 100_000),
    default: '0',
    description: 'Also mark it stuck once the chain grew this many blocks (ledgers) since it was sent; 0 = by time only.',
  },
  invalidateRefusedAfterSeconds: {
    env: 'INVALIDATE_REFUSED_AFTER_SECONDS',
    schema: int(0, 86_400 * 30),
    default: '3600',
    description:
      'A signed withdrawal whose transaction the node refused (without proof that it can never land) gets its invalidation this long after the first refusal: a cancel through its own custody sign request, so that one of the two lands and decides; 0 = only on request (the cancel route).',
  },
  resendAfterSeconds: {
    env: 'RESEND_AFTER_SECONDS',
    schema: int(1, 86_400),
    default: '30',
    description:
      'A transaction the node no longer knows is sent again from its stored signed bytes after this long, doubling for each resend (at most hourly).',
  },
  broadcastAttempts: {
    env: 'BROADCAST_ATTEMPTS',
    schema: int(1, 100),
    default: '12',
    description: 'Attempts of a broadcast with retryable errors (exponential backoff with jitter from 1 s) before FAILED.',
  },
  retainCompletedJobs: {
    env: 'RETAIN_COMPLETED_JOBS',
    schema: int(0, 1_000_000),
    default: '1000',
    description: 'Finished jobs kept per queue for the dashboard.',
  },
  retainFailedJobs: { env: 'RETAIN_FAILED_JOBS', schema: int(0, 1_000_000), default: '5000', description: 'Failed jobs kept per queue.' },
  workerConcurrency: { env: 'WORKER_CONCURRENCY', schema: int(1, 256), default: '16', description: 'Jobs a worker process runs at once per queue.' },
  jobLockMs: {
    env: 'JOB_LOCK_MS',
    schema: int(1000, 600_000),
    default: '30000',
    description: "How long a worker holds a job without renewing; a crashed worker's jobs are picked up again after it.",
  },
  inProcessWorker: {
    env: 'IN_PROCESS_WORKER',
    schema: bool,
    description: 'Run the queue workers inside the API process (default: only in the sandbox; use `npm run worker` otherwise).',
  },
  workerPort: {
    env: 'WORKER_PORT',
    schema: int(0, 65535),
    default: '8081',
    description:
      'Worker process (`npm run worker`) only: HTTP port of its `GET /status` (healthy = Redis answers and the queue workers run; 503 otherwise) and Prometheus `GET /metrics`.',
  },
  webhookAllowPrivate: {
    env: 'WEBHOOK_ALLOW_PRIVATE',
    schema: bool,
    description: 'Allow webhook URLs on loopback, link-local and private addresses (default: only in the sandbox).',
  },
  webhookMaxSubscriptions: {
    env: 'WEBHOOK_MAX_SUBSCRIPTIONS',
    schema: int(1, 10_000),
    default: '100',
    description: 'Most webhook subscriptions that may exist at once; creating one more answers 409 naming the limit.',
  },
  webhookTimeoutMs: {
    env: 'WEBHOOK_TIMEOUT_MS',
    schema: int(100, 120_000),
    default: '10000',
    description: 'Time a webhook receiver has to answer one delivery.',
  },
  webhookBackoffMs: {
    env: 'WEBHOOK_BACKOFF_MS',
    schema: int(10, 3_600_000),
    default: '10000',
    description: 'First wait before retrying a failed webhook delivery; each further wait doubles, up to `WEBHOOK_BACKOFF_MAX_MS`.',
  },
  webhookBackoffMaxMs: {
    env: 'WEBHOOK_BACKOFF_MAX_MS',
    schema: int(10, 86_400_000),
    default: '3600000',
    description: 'Longest wait between two attempts of a webhook delivery.',
  },
  webhookRetrySeconds: {
    env: 'WEBHOOK_RETRY_SECONDS',
    schema: int(1, 86_400 * 30),
    default: '90000',
    description: 'How long a webhook delivery is retried (the waits add up to at least this) before it is marked failed.',
  },
  dashboardReadOnly: {
    env: 'DASHBOARD_READ_ONLY',
    schema: bool,
    default: 'true',
    description: 'The job dashboard at /admin/queues shows but cannot retry, promote or remove jobs.',
  },
} satisfies Record<string, EnvEntry>;

export type EnvKey = keyof typeof ENV;
export type EnvValues = {
  [K in EnvKey]: (typeof ENV)[K] extends EnvEntry<infer T> ? ((typeof ENV)[K] extends { default: string } ? T : T | undefined) : never;
};
