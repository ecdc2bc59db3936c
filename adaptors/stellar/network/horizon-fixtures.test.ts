import { createServer, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Account, Keypair, Networks, Operation, Asset, TransactionBuilder, xdr } from '@stellar/stellar-sdk';
import { NodeRejectionError, UnavailableError } from '../../../src/platform/errors.js';
import type { LedgerAdaptor, SignedTx, VaultSource } from '../../../src/ledger/adaptor.js';
import { parsePublicKey, toCustodyKeyId } from '../../../src/ledger/public-key.js';
import { freePort } from '../../../src/dev/free-port.js';
import { testRedis } from '../../../test/helpers/redis.js';
import { stellarAdaptor } from '../test-kit.js';

const G = 'GA7QYNF7SOWQ3GLR2BGMZEHXAVIRZA4KVWLTJJFC7MGXUA74P7UJVSGZ';
const USDC_ISSUER = 'GBBD47IF6LWK7P7MDEVSCWR7DPUWV3NY3DTQEVFL4NAT4AQH3ZLLFLA5';
const fixture = (name: string) => readFileSync(new URL(`./fixtures/${name}.json`, import.meta.url), 'utf8');

type Reply = { status: number; body: string; headers?: Record<string, string> };
type Route = (method: string, path: string) => Reply | undefined;

describe('Stellar adaptor against Horizon response fixtures (fixtures/README.md)', () => {
  const { redis, prefix } = testRedis();
  let server: Server;
  let url: string;
  let route: Route = () => undefined;
  let adaptor: LedgerAdaptor;
  const requests: string[] = [];

  // Fixed answers for every read; tests override submission and lookups.
  const base: Route = (method, path) => {
    if (path === '/') return { status: 200, body: fixture('root') };
    // Horizon's state endpoints carry the ledger their data is as of (974512, the latest ledger fixture).
    if (path === `/accounts/${G}`) return { status: 200, body: fixture('account'), headers: { 'latest-ledger': '974512' } };
    if (path.startsWith('/accounts/')) return { status: 404, body: fixture('not-found') };
    if (path === '/fee_stats') return { status: 200, body: fixture('fee-stats') };
    if (path === '/ledgers?order=desc&limit=1') return { status: 200, body: fixture('ledgers-latest') };
    if (path.startsWith('/transactions/')) return { status: 404, body: fixture('not-found') };
    return undefined;
  };
  const txFound = (hash: string): Reply => ({ status: 200, body: fixture('transaction').replaceAll('{hash}', hash) });

  beforeAll(async () => {
    server = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        requests.push(`${req.method} ${req.url}`);
        const reply = route(req.method ?? 'GET', req.url ?? '/') ?? base(req.method ?? 'GET', req.url ?? '/');
        const r = reply ?? { status: 404, body: fixture('not-found') };
        const problem = r.status >= 400;
        res.writeHead(r.status, { 'content-type': problem ? 'application/problem+json; charset=utf-8' : 'application/hal+json; charset=utf-8', ...r.headers });
        res.end(r.body);
      });
    });
    const port = await freePort();
    await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${port}`;
    adaptor = stellarAdaptor(redis, prefix, { horizonUrl: url, assets: [{ code: 'USDC', issuer: USDC_ISSUER }] }, 'stellartest');
  });
  beforeEach(() => {
    route = () => undefined;
    requests.length = 0;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    redis.disconnect();
  });

  /** A signed payment from `source` (G) at `sequence`, as combine would produce (any key: Horizon is faked). */
  const signedAt = (sequence: bigint, source = G): SignedTx => {
    const tx = new TransactionBuilder(new Account(source, (sequence - 1n).toString()), {
      fee: '100',
      networkPassphrase: Networks.TESTNET,
      timebounds: { minTime: 0, maxTime: 1737539520 },
    })
      .addOperation(Operation.payment({ destination: USDC_ISSUER, asset: Asset.native(), amount: '1' }))
      .build();
    tx.sign(Keypair.random());
    return { txIndex: 0, serialized: tx.toEnvelope().toXDR('hex'), txid: tx.hash().toString('hex') };
  };

  it('reads health, native and credit balances in stroops, and zero for a missing account', async () => {
    expect(await adaptor.health()).toEqual({ healthy: true, height: 974512, network: Networks.TESTNET });
    const missing = Keypair.random().publicKey();
    expect(await adaptor.getBalances([G, missing], adaptor.assets())).toEqual([
      { address: G, asset: 'XLM', amount: 99_999_999_800n },
      { address: G, asset: 'USDC', amount: 123_456_789n },
      { address: missing, asset: 'XLM', amount: 0n },
      { address: missing, asset: 'USDC', amount: 0n },
    ]);
    const mainnet = stellarAdaptor(redis, prefix, { horizonUrl: url }, 'stellar');
    expect(await mainnet.health()).toMatchObject({ healthy: false, errorMessage: expect.stringContaining('Test SDF Network') });
  });

  it('prices fee levels from fee_stats percentiles and crafts create_account with the ledger reserve', async () => {
    const key = parsePublicKey('3f0c34bf93ad0d9971d04ccc90f705511c838aad9734a4a2fb0d7a03fc7fe89a', 'ed25519');
    const vault: VaultSource = { vaultId: 'v', addresses: [{ address: G, publicKey: key, keyId: toCustodyKeyId(key) }], changeAddress: G };
    const dest = Keypair.random().publicKey();
    const native = adaptor.assets()[0]!;
    const fees: Record<string, bigint> = {};
    for (const fee of ['HIGH', 'MEDIUM', 'LOW', '250']) {
      const u = await adaptor.craft(vault, { reference: `fx-${fee}`, recipientAddress: dest, asset: native, amount: 10_000_000n, fee });
      fees[fee] = u.fee;
      const env = xdr.TransactionEnvelope.fromXDR(u.txs[0]!.serialized, 'hex');
      expect(env.v1().tx().operations()[0]!.body().switch().name).toBe('createAccount');
      expect(env.v1().tx().seqNum().toString()).toBe((u.state as { sequence: string }).sequence);
      await adaptor.release(u, `fx-${fee}`);
    }
    expect(fees).toEqual({ HIGH: 1000n, MEDIUM: 150n, LOW: 100n, '250': 250n });
    const again = await adaptor.craft(vault, { reference: 'fx-again', recipientAddress: dest, asset: native, amount: 10_000_000n, fee: 'LOW' });
    // Released numbers are reused, and the first is the account's sequence + 1.
    expect((again.state as { sequence: string }).sequence).toBe('4183103229378562');
    await expect(adaptor.craft(vault, { reference: 'fx-low', recipientAddress: dest, asset: native, amount: 9_999_999n, fee: 'LOW' })).rejects.toThrow(
      /at least 1 XLM/,
    );
    await expect(adaptor.craft(vault, { reference: 'fx-fee', recipientAddress: dest, asset: native, amount: 10_000_000n, fee: '99' })).rejects.toThrow(
      /below the ledger's base fee/,
    );
  });

  it('treats tx_bad_seq for its own transaction, applied since the first look, as already known', async () => {
    const signed = signedAt(4183103229378561n);
    let looks = 0;
    route = (method, path) => {
      if (method === 'POST' && path === '/transactions') return { status: 400, body: fixture('tx-bad-seq') };
      if (path === `/transactions/${signed.txid}`) return looks++ === 0 ? undefined : txFound(signed.txid);
      return undefined;
    };
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(requests).toEqual([`GET /transactions/${signed.txid}`, 'POST /transactions', `GET /transactions/${signed.txid}`]);
  });

  it('answers already known without resubmitting a transaction Horizon already has', async () => {
    const signed = signedAt(4183103229378561n);
    route = (_method, path) => (path === `/transactions/${signed.txid}` ? txFound(signed.txid) : undefined);
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(requests).toEqual([`GET /transactions/${signed.txid}`]);
  });

  it("sends a run one at a time, looking up only what may be applied already: the first, and one that is not its predecessor's next", async () => {
    route = (method, path) => (method === 'POST' && path === '/transactions' ? txFound('0'.repeat(64)) : undefined);
    const [a, b] = [signedAt(4183103229378562n), signedAt(4183103229378563n)];
    const other = signedAt(4183103229378564n, Keypair.random().publicKey());
    const outcomes = await adaptor.broadcastMany!([a, b, other]);
    expect(outcomes).toEqual([a, b, other].map((t) => ({ ok: true, result: { txid: t.txid, alreadyKnown: false } })));
    // The third is the next number after the second, but of another account: it may be applied already.
    expect(requests).toEqual([
      `GET /transactions/${a.txid}`,
      'POST /transactions',
      'POST /transactions',
      `GET /transactions/${other.txid}`,
      'POST /transactions',
    ]);
  });

  it('retries tx_bad_seq while an earlier sequence is missing, and fails it once the sequence is used', async () => {
    route = (method, path) => (method === 'POST' && path === '/transactions' ? { status: 400, body: fixture('tx-bad-seq') } : undefined);
    const ahead = await adaptor.broadcast(signedAt(4183103229378563n)).catch((e) => e);
    expect(ahead).toBeInstanceOf(NodeRejectionError);
    expect(ahead).toMatchObject({ kind: 'nonce_too_high', retryable: true });
    const used = await adaptor.broadcast(signedAt(4183103229378561n)).catch((e) => e);
    expect(used).toBeInstanceOf(NodeRejectionError);
    expect(used.details).toMatch(/^tx_bad_seq: /);
  });

  it('turns result codes into a permanent failure with a reason', async () => {
    route = (method) => (method === 'POST' ? { status: 400, body: fixture('tx-failed-underfunded') } : undefined);
    const err = await adaptor.broadcast(signedAt(4183103229378562n)).catch((e) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(err.details).toBe('tx_failed [op_underfunded]: the source account lacks the funds for the amount');
  });

  it('takes a submission timeout as sent (queued by stellar-core), and makes 5xx and unreachable nodes retryable', async () => {
    route = (method) => (method === 'POST' ? { status: 504, body: fixture('timeout') } : undefined);
    const signed = signedAt(4183103229378562n);
    // The transaction waits in stellar-core's queue and may still land: the confirmation watch follows it.
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: false });
    route = (method) => (method === 'POST' ? { status: 503, body: '<html>Service Unavailable</html>' } : undefined);
    const down = await adaptor.broadcast(signed).catch((e) => e);
    expect(down).toBeInstanceOf(UnavailableError);
    expect(down.retryable).toBe(true);
    route = () => ({ status: 503, body: '<html>Service Unavailable</html>' });
    await expect(adaptor.getBalances([G], adaptor.assets())).rejects.toBeInstanceOf(UnavailableError);
    const closed = stellarAdaptor(redis, prefix, { horizonUrl: `http://127.0.0.1:${await freePort()}` }, 'stellartest');
    await expect(closed.getBalances([G], closed.assets())).rejects.toBeInstanceOf(UnavailableError);
    expect(await closed.health()).toMatchObject({ healthy: false });
  });

  it('reports a found transaction confirmed with confirmations from the latest ledger', async () => {
    const signed = signedAt(4183103229378562n);
    route = (_m, path) => (path === `/transactions/${signed.txid}` ? txFound(signed.txid) : undefined);
    // The state of a withdrawal at the account's next sequence number (the fixture account is at ...561).
    const state = { source: G, sequence: '4183103229378562', scope: `stellartest:${G}`, maxTime: '1737539520', creates: null };
    const unsigned = { txs: [], payloads: [], fee: 100n, state, expiresAt: 1737539520_000 };
    expect(await adaptor.txStatus(signed.txid, unsigned)).toEqual({ state: 'confirmed', confirmations: 3, blockHeight: 974510 });
    // Not found: unknown (to be sent again) while the ledger's close time is within the bounds, failed after,
    // once an instance at the latest ledger (the account's Latest-Ledger) shows the sequence number unspent.
    const other = signedAt(4183103229378563n).txid;
    expect(await adaptor.txStatus(other, unsigned)).toEqual({ state: 'unknown', confirmations: 0 });
    const expired = { ...unsigned, expiresAt: 1737454529_000 };
    expect(await adaptor.txStatus(other, expired)).toEqual({ state: 'failed', confirmations: 0, reason: 'expired: time bounds passed', proofConfirmations: 1 });
    expect(requests.at(-1)).toBe(`GET /accounts/${G}`);
    // Its sequence number spent by then: in a ledger the transaction lookup has not caught up with.
    expect(await adaptor.txStatus(other, { ...expired, state: { ...state, sequence: '4183103229378561' } })).toEqual({ state: 'pending', confirmations: 0 });
    // Without the header (a proxy strips it): unknown until an hour past the bound, failed after.
    route = (_m, path) => (path === `/accounts/${G}` ? { status: 200, body: fixture('account') } : undefined);
    expect(await adaptor.txStatus(other, expired)).toEqual({ state: 'unknown', confirmations: 0 });
    expect(await adaptor.txStatus(other, { ...expired, expiresAt: 1737454530_000 - 3_600_001 })).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: 'expired: time bounds passed',
      proofConfirmations: 1,
    });
  });
});
