/**
 * Every Redis key name the service writes, built in one place from the key prefix.
 *
 * The names are what is on disk: changing one makes existing data unreadable, so they only
 * ever change with a migration (test/redis-keys.test.ts pins them). `prefix` is the service's
 * prefix with its trailing colon (`byow:`, see `servicePrefix`).
 *
 * Redis Cluster: the keys of one Lua script must hash to one slot. A `{hash-tagged}` prefix
 * (`{byow}:`) puts every key of the service in one slot; without one, the scopes below that
 * carry their own tag (`seq:{scope}`, `claim:{scope}`, `send-order:{ledger:account}` with `send-lock:{ledger:account}`) keep
 * each script's keys together on their own.
 */

/** The service's prefix (`byow:`) from REDIS_PREFIX (`byow`). */
export const servicePrefix = (keyPrefix: string): string => `${keyPrefix}:`;

/** BullMQ's own prefix option: it adds the colon itself (`byow:withdrawals:…`). */
export const queuePrefix = (keyPrefix: string): string => keyPrefix;

/** The custody emulator's prefix when it runs on its own (`npm run custody-emulator`, CUSTODY_EMULATOR_REDIS_PREFIX). */
export const CUSTODY_EMULATOR_PREFIX = 'custody-emulator:';

/** The sandbox's custody emulator keeps its state beside the service's, under its own prefix. */
export const custodyEmulatorPrefix = (keyPrefix: string): string => `${servicePrefix(keyPrefix)}${CUSTODY_EMULATOR_PREFIX}`;

/** The key that says which profile (sandbox, production) a prefix's data belongs to. */
export const profileKey = (prefix: string): string => `${prefix}profile`;

/**
 * The operation store (operation-store.ts):
 * - `op:{id}`            the operation JSON
 * - `op:{id}:sigs`       hash payload index → verified signature (partial sets accumulate)
 * - `op:{id}:sigs:{n}`   signatures of replacement attempt n (speed-up, cancel)
 * - `op:{id}:seq`        the operation's event counter (events are numbered per withdrawal)
 * - `opid:{operationID}` custody operation id → withdrawal id (callbacks, and the routes' `{id}`)
 * - `digest-ops:{hex}`   set of the operations with this digest (callbacks are matched by what we
 *                        stored). A set: an Ethereum transaction does not name its sender, so two
 *                        vaults paying the same amount to the same address at the same nonce and
 *                        fee sign the very same digest.
 * - `vault-ops:{vault}`  sorted set of a vault's operations by creation time
 * - `open-ops`           sorted set of operations not yet broadcast (EXECUTING, SIGNED), for reconciliation
 * - `reconcile-cursor`   the last `open-ops` entry reconciliation checked (`{ms, id}` JSON), where its next run goes on
 * - `ops-by-time`        sorted set of every operation by creation time (the operator's list)
 * - `outbox`             stream of withdrawal events (see outbox.ts)
 * (`{id}` here stands for the value, not a hash tag.)
 */
export interface OperationKeys {
  operation(id: string): string;
  /** Signatures of attempt `attempt` (0 = the original). */
  signatures(id: string, attempt: number): string;
  eventSequence(id: string): string;
  custodyId(operationID: string): string;
  /** Lower-cased: digests arrive in either case. */
  digest(hex: string): string;
  byVault(vaultId: string): string;
  readonly open: string;
  readonly reconcileCursor: string;
  readonly byTime: string;
  readonly outbox: string;
}

export function operationKeys(prefix: string): OperationKeys {
  return {
    operation: (id) => `${prefix}op:${id}`,
    signatures: (id, attempt) => (attempt === 0 ? `${prefix}op:${id}:sigs` : `${prefix}op:${id}:sigs:${attempt}`),
    eventSequence: (id) => `${prefix}op:${id}:seq`,
    custodyId: (operationID) => `${prefix}opid:${operationID}`,
    digest: (hex) => `${prefix}digest-ops:${hex.toLowerCase()}`,
    byVault: (vaultId) => `${prefix}vault-ops:${vaultId}`,
    open: `${prefix}open-ops`,
    reconcileCursor: `${prefix}reconcile-cursor`,
    byTime: `${prefix}ops-by-time`,
    outbox: `${prefix}outbox`,
  };
}

/** Reservations (ledger/reservations.ts): sequence numbers and claimed items (UTXOs), one hash tag per scope. */
export const reservationKeys = (prefix: string) => ({
  /** Last handed-out number, free list and owners of a scope's sequence (`ethtest:0xabc…`). */
  sequence(scope: string): { last: string; free: string; owners: string } {
    const base = `${prefix}seq:{${scope}}`;
    return { last: `${base}:last`, free: `${base}:free`, owners: `${base}:owners` };
  },
  /**
   * What a scope's reserved numbers not yet mined may spend (reserveSequenceWithin), in the
   * sequence's hash tag: `spent` ('n|asset' → amount), its lex index, the totals per asset,
   * the highest mined count seen.
   */
  spend(scope: string): { spent: string; spentIndex: string; spentTotal: string; mined: string } {
    const base = `${prefix}seq:{${scope}}`;
    return { spent: `${base}:spent`, spentIndex: `${base}:spent-idx`, spentTotal: `${base}:spent-total`, mined: `${base}:mined` };
  },
  claim: (scope: string, item: string) => `${prefix}claim:{${scope}}:${item}`,
});

/** The vault registry (vaults/). */
export interface VaultKeys {
  /** The vault's record (a JSON string). */
  vault(vaultId: string): string;
  /** Sorted set of registered vault ids, for listing. */
  readonly index: string;
  /** Hash of a BIP44 vault's further accounts, field `coin/account`. */
  accounts(vaultId: string): string;
  /** Hash of one BIP44 account's derived addresses and last used indexes (`address-index.ts`). */
  addressIndex(vaultId: string, coin: string, account: string): string;
  /**
   * Counter raised after every change of what a deposit scanner watches (a vault or an account
   * registered or removed, a BIP44 chain's last used mark raised): the scanner reads the registry
   * again only when it moved (`deposits/watched-set.ts`).
   */
  readonly changes: string;
}

export function vaultKeys(prefix: string): VaultKeys {
  return {
    vault: (vaultId) => `${prefix}vault:${vaultId}`,
    index: `${prefix}vaults`,
    accounts: (vaultId) => `${prefix}vault:${vaultId}:accounts`,
    addressIndex: (vaultId, coin, account) => `${prefix}vault:${vaultId}:addresses:${coin}/${account}`,
    changes: `${prefix}vaults:changes`,
  };
}

/**
 * The webhooks (webhooks/):
 * - `webhook-subscriptions`                 hash: subscription id → subscription JSON (with its secret)
 * - `webhook:{sub}:deliveries`              sorted set of a subscription's deliveries by creation time
 * - `webhook:{sub}:expiring`                sorted set of its finished deliveries by when their records expire (ms)
 * - `webhook-delivery:{delivery}`           hash: one delivery (event body, status, attempts, last answer)
 * - `webhook:{sub}:pending:{withdrawal}`    list of deliveries not yet made, in event order; only the head has a job
 * - `webhook:{sub}:dispatched:{withdrawal}` sequence of the last event dispatched (a re-read outbox entry is skipped)
 */
export interface WebhookKeys {
  subscriptions: string;
  deliveries(subscriptionId: string): string;
  expiring(subscriptionId: string): string;
  delivery(deliveryId: string): string;
  pending(subscriptionId: string, orderKey: string): string;
  dispatched(subscriptionId: string, orderKey: string): string;
}

export function webhookKeys(prefix: string): WebhookKeys {
  return {
    subscriptions: `${prefix}webhook-subscriptions`,
    deliveries: (sub) => `${prefix}webhook:${sub}:deliveries`,
    expiring: (sub) => `${prefix}webhook:${sub}:expiring`,
    delivery: (id) => `${prefix}webhook-delivery:${id}`,
    pending: (sub, key) => `${prefix}webhook:${sub}:pending:${key}`,
    dispatched: (sub, key) => `${prefix}webhook:${sub}:dispatched:${key}`,
  };
}

/** A withdrawal request's Idempotency-Key, per vault. */
export const idempotencyKey = (prefix: string, vaultId: string, key: string): string => `${prefix}idem:${vaultId}:${key}`;

/** Who waits for which predecessor on one sending account (send-order.ts); the account lower-cased. */
export const sendOrderKey = (prefix: string, ledgerId: string, account: string): string => `${prefix}send-order:{${ledgerId}:${account.toLowerCase()}}`;

/** The send lock of one sending account: held by the one job sending its consecutive ready transactions (send-order.ts); same hash tag as its book. */
export const sendLockKey = (prefix: string, ledgerId: string, account: string): string => `${prefix}send-lock:{${ledgerId}:${account.toLowerCase()}}`;

/** The token bucket of one client of the open routes. */
export const rateLimitKey = (prefix: string, client: string): string => `${prefix}rate-limit:${client}`;

/** A dashboard session, by the SHA-256 (hex) of its token: the token itself is never stored. */
export const dashboardSessionKey = (prefix: string, tokenSha256: string): string => `${prefix}dashboard:session:${tokenSha256}`;

/** The custody emulator's state (custody-emulator/store.ts), under its own prefix. */
export const emulatorKeys = (prefix: string) => ({
  /** One hash per record kind (`user`, `vault`, …) of id → JSON. */
  records: (kind: string) => `${prefix}${kind}`,
  token: (sha256: string) => `${prefix}token:${sha256}`,
  ownerTokens: (owner: string) => `${prefix}owner-tokens:${owner}`,
});

/**
 * The deposits (deposits/), per ledger `{L}` (the value, not a hash tag: like the operation
 * store's scripts, the scanner's step writes the shared `outbox` with them, so Redis Cluster
 * needs the `{hash-tagged}` service prefix):
 * - `deposit-cursor:{L}`       hash: the last block scanned (`height`, `hash`, `time`)
 * - `deposit-blocks:{L}`       hash: height → hash of the blocks scanned within the reorg window
 * - `deposit-window:{L}`       sorted set of deposits in those blocks, by height (a reorg finds them here)
 * - `deposit-unconfirmed:{L}`  sorted set of DETECTED deposits by block height (the confirmation step)
 * - `deposit-orphans:{L}`      sorted set of deposits whose block left the best chain, by that height
 * - `deposit-lock:{L}`         the scanner's lock: the token of the one worker scanning the ledger
 * - `deposit-node:{L}`         JSON: what the scanner last saw of the node (tip, lag, error), for /status
 * - `deposit:{depositId}`      hash: one deposit (immutable `data` JSON, state, block, event counter)
 * - `deposits-by-time`         sorted set of every deposit by detection time (the operator's list)
 * - `vault-deposits:{vault}`   sorted set of a vault's deposits by detection time
 * - `deposit-backfill:{vault}` hash: the vault's back-fill of earlier blocks (range, its own cursor, state)
 */
export interface DepositKeys {
  cursor(ledgerId: string): string;
  blocks(ledgerId: string): string;
  window(ledgerId: string): string;
  unconfirmed(ledgerId: string): string;
  orphans(ledgerId: string): string;
  lock(ledgerId: string): string;
  node(ledgerId: string): string;
  deposit(depositId: string): string;
  readonly byTime: string;
  byVault(vaultId: string): string;
  backfill(vaultId: string): string;
  /** The stream withdrawal events go to as well: one outbox, one dispatcher. */
  readonly outbox: string;
}

export function depositKeys(prefix: string): DepositKeys {
  return {
    cursor: (l) => `${prefix}deposit-cursor:${l}`,
    blocks: (l) => `${prefix}deposit-blocks:${l}`,
    window: (l) => `${prefix}deposit-window:${l}`,
    unconfirmed: (l) => `${prefix}deposit-unconfirmed:${l}`,
    orphans: (l) => `${prefix}deposit-orphans:${l}`,
    lock: (l) => `${prefix}deposit-lock:${l}`,
    node: (l) => `${prefix}deposit-node:${l}`,
    deposit: (id) => `${prefix}deposit:${id}`,
    byTime: `${prefix}deposits-by-time`,
    byVault: (v) => `${prefix}vault-deposits:${v}`,
    backfill: (v) => `${prefix}deposit-backfill:${v}`,
    outbox: operationKeys(prefix).outbox,
  };
}
