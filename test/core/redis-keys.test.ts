import { createHash } from 'node:crypto';
import { afterAll, describe, expect, it } from 'vitest';
import { claimProfile } from '../../src/config/profile-marker.js';
import { createStore } from '../../src/dev/custody-emulator/store.js';
import { BackfillStore } from '../../src/deposits/backfill-store.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { DashboardSessions } from '../../src/http/dashboard/dashboard-sessions.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { Idempotency } from '../../src/withdrawals/store/idempotency.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { SendOrderBook } from '../../src/withdrawals/sending/send-order.js';
import { CUSTODY_EMULATOR_PREFIX, custodyEmulatorPrefix, queuePrefix, servicePrefix, webhookKeys } from '../../src/platform/redis-keys.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { SubscriptionStore } from '../../src/webhooks/subscription-store.js';
import { testRedis } from '../helpers/redis.js';
import { fakeOperation } from '../webhooks/support.js';

/**
 * The key names are what is on disk: a deployment upgraded in place must find its operations,
 * digests, reservations and vaults where the previous version wrote them. Each store writes
 * through its real code here, and the keys it leaves are compared with the names, literally.
 */
describe('Redis key names stay as they are on disk', () => {
  const { redis, prefix } = testRedis();
  afterAll(() => redis.disconnect());

  const keysUnder = async (p: string) => (await redis.keys(`${p}*`)).map((k) => k.slice(p.length)).sort();

  it('the operation store: record, signatures, event counter, custody id, digest index, lists, reconciliation cursor, outbox', async () => {
    const p = `${prefix}ops:`;
    const store = new OperationStore(redis, p);
    const op = fakeOperation({ vaultId: 'vault-a' });
    const digest = op.unsigned.payloads[0]!.digest;
    await store.create({ ...op, unsigned: { ...op.unsigned, payloads: [{ ...op.unsigned.payloads[0]!, digest: digest.toUpperCase() }] } });
    await store.linkCustodyId(op, 'custody-1');
    await store.addSignatures(op.id, new Map([[0, { signature: 'aa', recoveryId: 0 }]]));
    await store.addSignatures(op.id, new Map([[0, { signature: 'bb', recoveryId: 1 }]]), 2);
    await store.saveReconcileCursor({ ms: 1, id: op.id });
    expect(await keysUnder(p)).toEqual(
      [
        `op:${op.id}`,
        `op:${op.id}:seq`,
        `op:${op.id}:sigs`,
        `op:${op.id}:sigs:2`,
        'opid:custody-1',
        `digest-ops:${digest.toLowerCase()}`,
        'vault-ops:vault-a',
        'open-ops',
        'reconcile-cursor',
        'ops-by-time',
        'outbox',
      ].sort(),
    );
    expect(store.outboxKey).toBe(`${p}outbox`);
  });

  it('reservations keep their per-scope hash tags; the send-order book and send lock their {ledger:account} tag', async () => {
    const p = `${prefix}res:`;
    const reservations = new Reservations(redis, p);
    const n = await reservations.reserveSequence('ethdev:0xabc', 7n, 'op-1');
    await reservations.reserveSequence('ethdev:0xabc', 7n, 'op-2');
    await reservations.releaseSequence('ethdev:0xabc', n, 'op-1');
    await reservations.claim('btcdev:bcrt1q', ['txid:0'], 'op-1', 60_000);
    await new SendOrderBook(redis, p).readyAndTryLock('ethdev', '0xAbC', 9n, 'op-3', 'token-1');
    expect(await keysUnder(p)).toEqual(
      [
        'seq:{ethdev:0xabc}:last',
        'seq:{ethdev:0xabc}:free',
        'seq:{ethdev:0xabc}:owners',
        'claim:{btcdev:bcrt1q}:txid:0',
        'send-order:{ethdev:0xabc}',
        'send-lock:{ethdev:0xabc}',
      ].sort(),
    );
    // A number reserved with what its transaction may spend: the spend keys share the scope's tag.
    const spending = await reservations.reserveSequenceWithin('ethdev:0xdef', 0n, 'op-4', { balances: { ETH: 10n }, minedBelow: 0n, spend: { ETH: 4n } });
    expect(spending).toEqual({ ok: true, n: 0n });
    expect((await keysUnder(p)).filter((k) => k.startsWith('seq:{ethdev:0xdef}'))).toEqual(
      [
        'seq:{ethdev:0xdef}:last',
        'seq:{ethdev:0xdef}:owners',
        'seq:{ethdev:0xdef}:spent',
        'seq:{ethdev:0xdef}:spent-idx',
        'seq:{ethdev:0xdef}:spent-total',
        'seq:{ethdev:0xdef}:mined',
      ].sort(),
    );
  });

  it('vaults, idempotency keys, webhook subscriptions, dashboard sessions, the profile marker', async () => {
    const p = `${prefix}misc:`;
    await new VaultStore(redis, p).create({
      vaultId: 'v1',
      ledgerId: 'ethdev',
      kind: 'single',
      publicKey: '02'.padEnd(66, '1'),
      createdAt: new Date().toISOString(),
    });
    await new Idempotency(redis, p, async () => undefined).run('v1', 'retry-1', {}, async (id) => id);
    await new SubscriptionStore(redis, webhookKeys(p)).create({ url: 'https://example.com/hook', events: ['*'] });
    const token = await new DashboardSessions(redis, p).create('admin');
    await claimProfile(redis, p, 'production');
    const session = createHash('sha256').update(token, 'utf8').digest('hex');
    expect(await keysUnder(p)).toEqual(
      ['vault:v1', 'vaults', 'vaults:changes', 'idem:v1:retry-1', 'webhook-subscriptions', `dashboard:session:${session}`, 'profile'].sort(),
    );
  });

  it('deposits: per-ledger cursor, block window, orphans, lock, node view; a hash per deposit; lists by time; the shared outbox; a back-fill per vault', async () => {
    const p = `${prefix}dep:`;
    const store = new DepositStore(redis, p);
    await store.initCursor('ethdev', { height: 1, hash: '0x01', time: 0 });
    const data = {
      depositId: 'ethdev:0xaa:value',
      ledgerId: 'ethdev',
      vaultId: 'v1',
      address: '0xbb',
      txid: '0xaa',
      index: 'value',
      asset: 'ETH',
      credited: true,
      amount: '1',
      baseUnits: '1',
      from: [],
    };
    const block = { height: 2, hash: '0x02', parentHash: '0x01', time: 0, transfers: [] };
    await store.apply('ethdev', { height: 1, hash: '0x01', time: 0 }, block, [data], { confirmations: 3, window: 10 });
    await store.unwind('ethdev', { height: 2, hash: '0x02', time: 0 }, 2);
    await store.lock('ethdev', 'token', 60_000);
    await store.saveNodeView('ethdev', { at: '' });
    await new BackfillStore(redis, p).start('ethdev', 'v1', 1, 2);
    expect(await keysUnder(p)).toEqual(
      [
        'deposit-backfill:v1',
        'deposit-cursor:ethdev',
        'deposit-blocks:ethdev',
        'deposit-orphans:ethdev',
        'deposit-lock:ethdev',
        'deposit-node:ethdev',
        'deposit:ethdev:0xaa:value',
        'deposits-by-time',
        'vault-deposits:v1',
        'outbox',
      ].sort(),
    );
    expect(store.keys.window('ethdev')).toBe(`${p}deposit-window:ethdev`);
    expect(store.keys.unconfirmed('ethdev')).toBe(`${p}deposit-unconfirmed:ethdev`);
  });

  it('the prefixes: the service, BullMQ, the sandbox custody emulator', async () => {
    expect(servicePrefix('byow')).toBe('byow:');
    expect(queuePrefix('{byow}')).toBe('{byow}');
    const p = custodyEmulatorPrefix(`${prefix}emu`);
    expect(p).toBe(`${prefix}emu:custody-emulator:`);
    // The standalone emulator's default (npm run custody-emulator).
    expect(CUSTODY_EMULATOR_PREFIX).toBe('custody-emulator:');
    const emulator = createStore(redis, p);
    await emulator.put('vault', 'v1', { id: 'v1' });
    await emulator.putToken('h1', { kind: 'access', owner: 'so', role: 'admin', expiresAt: Date.now() + 60_000 });
    expect(await keysUnder(p)).toEqual(['vault', 'token:h1', 'owner-tokens:so'].sort());
  });
});
