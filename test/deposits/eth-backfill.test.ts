import * as ecc from 'tiny-secp256k1';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ethereumFamily } from '../../adaptors/ethereum/index.js';
import { DevChainFunder, type DemoToken } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import type { DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { parsePublicKey } from '../../src/ledger/public-key.js';
import { ADMIN_KEY, READ_KEY, startTestService, type TestService } from '../helpers/service.js';
import { until } from '../pipeline/support.js';
import { startReceiver, type Received } from '../webhooks/support.js';

/**
 * The back-fill through the service on a real anvil: payments made to a vault's address before
 * the vault was registered are found by a back-fill the operator asks for, beside the live
 * scan, and confirmed once; a payment both find is one deposit with one set of events.
 */
describe('deposit back-fill through the service on anvil', () => {
  let anvil: LocalAnvil;
  let funder: DevChainFunder;
  let demo: DemoToken;
  let svc: TestService;
  let store: DepositStore;
  let startHeight: number;
  const vaultId = 'late-vault';
  const publicKey = Buffer.from(ecc.pointFromScalar(Buffer.alloc(32, 11), true)!).toString('hex');
  let address: string;
  const rpc = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const res = await fetch(anvil.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return ((await res.json()) as { result: T }).result;
  };
  const height = async () => Number(await rpc<string>('eth_blockNumber'));
  /** An admin key limited to another ledger's vaults. */
  const OTHER_LEDGER_KEY = 'test-other-ledger-admin-0123456789abc';
  const keys = [
    { name: 'admin', key: ADMIN_KEY, scopes: ['admin', 'read', 'withdraw'] },
    { name: 'reader', key: READ_KEY, scopes: ['read'] },
    { name: 'btc-admin', key: OTHER_LEDGER_KEY, scopes: ['admin'], ledgers: ['btcmain'] },
  ];
  const admin = (method: string, path: string, body?: unknown) => svc.call(method, `/api/v1.0${path}`, { key: ADMIN_KEY, body });
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** The deposit events delivered, each once (delivery is at least once: deduplicated by event id). */
  const events = async (): Promise<DepositEvent[]> => [
    ...new Map(receiver.received.map((r: Received) => [(r.body as DepositEvent).id, r.body as DepositEvent])).values(),
  ];

  beforeAll(async () => {
    anvil = await startAnvil();
    funder = new DevChainFunder(anvil.url);
    demo = await funder.deployDemoToken();
    startHeight = await height();
    svc = await startTestService(
      { ethdev: { rpcUrl: anvil.url, tokens: [demo], confirmations: 2 } },
      {
        pipeline: true,
        workers: true,
        env: { DEPOSIT_POLL_MS: '200', DEPOSIT_START: JSON.stringify({ ethdev: startHeight }), WEBHOOK_ALLOW_PRIVATE: 'true', API_KEYS: JSON.stringify(keys) },
      },
    );
    receiver = await startReceiver();
    const sub = await admin('POST', '/admin/webhooks', { url: receiver.url, events: ['deposit.detected', 'deposit.confirmed', 'deposit.reverted'] });
    expect(sub.status).toBe(201);
    store = new DepositStore(svc.core.redis, svc.core.prefix);
    address = ethereumFamily.addressCodec!('ethdev')!.addressFromPublicKey(parsePublicKey(publicKey, 'secp256k1'));
  }, 120_000);
  afterAll(async () => {
    await receiver?.close();
    await svc?.stop();
    funder?.destroy();
    await anvil?.stop();
  });

  it('refuses what it cannot do with 422 naming why', async () => {
    expect((await admin('POST', '/admin/vaults', { vaultId, ledgerId: 'ethdev', publicKey })).status).toBe(201);
    await until('the live scan to start', async () => (await store.cursor('ethdev')) !== undefined, 30_000);
    const tip = await height();
    const cases: [unknown, RegExp][] = [
      [{ vaultId: 'no-such-vault', fromHeight: 1 }, /'no-such-vault' is not a registered vault/],
      [{ vaultId, fromHeight: tip + 1000 }, new RegExp(`fromHeight ${tip + 1000} is beyond the tip of ethdev`)],
      [{ vaultId, fromHeight: -1 }, /fromHeight is a block height: 0 or more/],
      [{ vaultId, fromHeight: 1.5 }, /fromHeight is a block height: a whole number/],
      [{ vaultId }, /fromHeight/],
    ];
    for (const [body, details] of cases) {
      const res = await admin('POST', '/admin/deposits/backfill', body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(res.body).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', details: expect.stringMatching(details) });
    }
    const none = await admin('GET', '/admin/deposits/backfill/never-asked');
    expect(none.status).toBe(404);
    // A read key may not ask for one; an admin key of another ledger is told the vault is not there.
    expect((await svc.call('POST', '/api/v1.0/admin/deposits/backfill', { key: READ_KEY, body: { vaultId, fromHeight: 1 } })).status).toBe(403);
    const elsewhere = await svc.call('POST', '/api/v1.0/admin/deposits/backfill', { key: OTHER_LEDGER_KEY, body: { vaultId, fromHeight: 1 } });
    expect(elsewhere.status).toBe(422);
    expect(elsewhere.body.details).toBe(`vaultId '${vaultId}' is not a registered vault`);
    expect((await admin('DELETE', `/admin/vaults/${vaultId}`)).status).toBe(200);
  });

  it('finds payments made before the vault was registered, confirms each once; one the live scan found too is not doubled', async () => {
    const eth = await funder.sendEth(address, 10n ** 15n);
    const token = await funder.sendToken(demo.contract, address, 2_500_000n);
    // The live scan reads those blocks before the vault exists: nothing is found.
    const before = await height();
    await until('the live scan past the payments', async () => ((await store.cursor('ethdev'))?.height ?? 0) >= before, 30_000);
    expect((await store.idsNewestFirst({ fromMs: 0, toMs: Number.MAX_SAFE_INTEGER, count: 10 })).length).toBe(0);
    expect((await admin('POST', '/admin/vaults', { vaultId, ledgerId: 'ethdev', publicKey })).status).toBe(201);
    const both = await funder.sendEth(address, 7n);
    await until('the live scan to find the payment after registration', async () => (await events()).some((e) => e.deposit.txid === both), 30_000);

    const asked = await admin('POST', '/admin/deposits/backfill', { vaultId, fromHeight: startHeight + 1 });
    expect(asked.status).toBe(202);
    expect(asked.body).toMatchObject({ vaultId, ledgerId: 'ethdev', fromHeight: startHeight + 1, state: 'RUNNING' });
    expect(asked.body.toHeight).toBeGreaterThanOrEqual(before + 1);
    const done = await until(
      'the back-fill to finish',
      async () => {
        const b = await admin('GET', `/admin/deposits/backfill/${vaultId}`);
        return b.body.state === 'DONE' && b.body;
      },
      30_000,
    );
    expect(done).toMatchObject({ found: 3, detected: 2, height: asked.body.toHeight });

    await rpc('anvil_mine', ['0x2']);
    await until('every deposit confirmed', async () => (await events()).filter((e) => e.type === 'deposit.confirmed').length === 3, 30_000);
    // Nothing more comes: the live scan goes on over the back-filled blocks' heights and beyond.
    await rpc('anvil_mine', ['0x2']);
    const tip = await height();
    await until('the live scan at the tip', async () => (await store.cursor('ethdev'))?.height === tip, 30_000);
    const list = await svc.call('GET', `/api/v1.0/vaults/${vaultId}/deposits`, { key: READ_KEY });
    expect(list.body.items.map((d: { txid: string; state: string }) => [d.txid, d.state]).sort()).toEqual(
      [
        [eth, 'CONFIRMED'],
        [token, 'CONFIRMED'],
        [both, 'CONFIRMED'],
      ].sort(),
    );
    const byDeposit = new Map<string, string[]>();
    for (const e of await events()) byDeposit.set(e.depositId, [...(byDeposit.get(e.depositId) ?? []), `${e.type}#${e.sequence}`]);
    expect([...byDeposit.values()]).toEqual([
      ['deposit.detected#1', 'deposit.confirmed#2'],
      ['deposit.detected#1', 'deposit.confirmed#2'],
      ['deposit.detected#1', 'deposit.confirmed#2'],
    ]);
    const metrics = await (await fetch(`${svc.url}/metrics`)).text();
    expect(metrics).toMatch(/byow_deposits_total\{ledger="ethdev",event="detected"\} 3/);
  });
});
