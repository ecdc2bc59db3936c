import { createServer, type Server } from 'node:http';
import { Keypair, TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRejectionError, provesNeverLands } from '../../src/platform/errors.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { testRedis } from '../../test/helpers/redis.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';
import { startStellarLedger, type LocalStellarLedger } from './local-node/index.js';
import { transactionFailed, transactionMalformed } from './local-node/horizon-json.js';
import { txFailureXdr } from './local-node/results.js';
import { signedOnSimulator } from './test-kit.js';

/**
 * A Horizon that refuses a signed withdrawal with an answer that proves nothing about its bytes
 * (`tx_insufficient_balance`: the vault's funding not seen by that node yet), while the same
 * signed envelope reaches the network from elsewhere. The withdrawal must stay open (BROADCAST,
 * `refused`, its sequence number held), never FAILED, and follow the chain: CONFIRMED when the
 * envelope lands, FAILED only once its invalidation (a bump_sequence at its own number, signed
 * through the custody emulator) has landed instead. A malformed envelope still ends FAILED at once.
 */

/** A Horizon in front of the simulator that answers a submission of a refused envelope with `refusal` (every time it is sent), and passes the rest on. */
async function refusingHorizon(target: string) {
  const proxy = {
    url: '',
    host: '',
    /** Set: the next envelope submitted is refused, and so is every later submission of it. */
    refuseNext: undefined as { transaction: string } | undefined,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const refusals = new Map<string, { transaction: string }>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const body = Buffer.concat(chunks).toString('utf8');
      if (req.method === 'POST' && req.url === '/transactions') {
        const envelope = new URLSearchParams(body).get('tx') ?? '';
        const codes = proxy.refuseNext;
        if (codes) {
          refusals.set(envelope, codes);
          proxy.refuseNext = undefined;
        }
        const refusal = refusals.get(envelope);
        if (refusal) {
          const p = transactionFailed(envelope, txFailureXdr(refusal.transaction), refusal);
          return void res.writeHead(p.status, { 'content-type': 'application/problem+json' }).end(JSON.stringify(p.body));
        }
      }
      const answer = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers: { ...(req.headers['content-type'] ? { 'content-type': req.headers['content-type'] } : {}) },
        ...(req.method === 'POST' ? { body } : {}),
      });
      const headers: Record<string, string> = { 'content-type': answer.headers.get('content-type') ?? 'application/json' };
      const latest = answer.headers.get('latest-ledger');
      if (latest) headers['latest-ledger'] = latest;
      res.writeHead(answer.status, headers).end(await answer.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.host = `127.0.0.1:${port}`;
  return proxy;
}

interface Setup {
  ledger: LocalStellarLedger;
  horizon: Awaited<ReturnType<typeof refusingHorizon>>;
  loop: Loop;
}

async function setUp(env: Record<string, string>): Promise<Setup> {
  const ledger = await startStellarLedger({ closeIntervalMs: 0 });
  const horizon = await refusingHorizon(ledger.url);
  const loop = await startLoop(
    { stellardev: { horizonUrl: horizon.url, networkPassphrase: ledger.passphrase } },
    { env: { RESEND_AFTER_SECONDS: '1', ...env } },
  );
  return { ledger, horizon, loop };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  await s?.loop.stop();
  await s?.horizon.close();
  await s?.ledger.stop();
}

const XLM = 10_000_000n;
const sequenceOf = (view: { appData: { txs: { serialized: string }[] } }, passphrase: string) =>
  BigInt((TransactionBuilder.fromXDR(Buffer.from(view.appData.txs[0]!.serialized, 'hex').toString('base64'), passphrase) as Transaction).sequence);
const everFailed = (view: { history: { status: string }[] }) => view.history.some((h) => h.status === 'FAILED');

/** A funded vault and recipient, and withdrawal A of 5 XLM whose every submission Horizon refuses with `codes`. */
async function refusedWithdrawal(s: Setup, codes: { transaction: string }) {
  const { ledger, horizon, loop } = s;
  const v = await loop.vault('stellardev');
  await ledger.fund(v.address, '100');
  const dest = Keypair.random().publicKey();
  await ledger.fund(dest, '10');
  horizon.refuseNext = codes;
  const res = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
    key: WITHDRAW_KEY,
    body: { recipientAddress: dest, amount: '5', description: 'refused by one Horizon' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { v, dest, id: res.body.operationID as string };
}

/** The signed envelope of withdrawal `id` as stored (base64), as anyone holding it could submit it. */
async function signedEnvelope(loop: Loop, id: string): Promise<string> {
  const stored = await new OperationStore(loop.svc.core.redis, loop.svc.core.prefix).resolve(id);
  return Buffer.from(stored!.signedTxs![0]!, 'hex').toString('base64');
}

describe('Stellar: a refusal that proves nothing holds the withdrawal open', () => {
  let s: Setup | undefined;
  beforeAll(async () => {
    s = await setUp({});
  });
  afterAll(() => tearDown(s));

  it('tx_insufficient_balance: held (refused, BROADCAST), the retry takes the next sequence number, the envelope lands from elsewhere: both CONFIRMED, paid twice', async () => {
    const { ledger, horizon, loop } = s!;
    const { v, dest, id } = await refusedWithdrawal(s!, { transaction: 'tx_insufficient_balance' });
    const held = await loop.waitFor(v.vaultId, id, (o) => o.refused !== undefined);
    expect(held.status).toBe('BROADCAST');
    expect(held.refused.answer).toMatch(/^tx_insufficient_balance: /);
    expect(held.attempts[0].refusals[0]).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', node: horizon.host });

    // The integrator retries with B while A is open: B takes the next number, never A's.
    const b = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: dest, amount: '5', description: 'the retry' },
    });
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(sequenceOf(b.body, ledger.passphrase)).toBe(sequenceOf(held, ledger.passphrase) + 1n);
    // A is sent again and refused again; B waits behind it (its number is ahead of the account's).
    await loop.waitFor(v.vaultId, id, (o) => o.attempts[0].refusals.length >= 2, 10_000);
    expect(ledger.account(dest)!.balance).toBe(10n * XLM);
    expect((await loop.waitFor(v.vaultId, id, () => true)).status).toBe('BROADCAST');

    // The same signed envelope reaches the network from outside the service.
    expect(ledger.submit(await signedEnvelope(loop, id)).kind).toBe('applied');
    const a = await loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 15_000);
    expect(a.status, JSON.stringify(a.history)).toBe('CONFIRMED');
    expect(everFailed(a)).toBe(false);
    expect(a.refused).toBeUndefined();
    const done = await loop.waitFor(v.vaultId, b.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
    expect(done.status, JSON.stringify(done.history)).toBe('CONFIRMED');
    // Paid exactly as many times as withdrawals CONFIRMED: two.
    expect(ledger.account(dest)!.balance).toBe(20n * XLM);
  });

  it('a malformed envelope (tx_malformed) proves it can never land: FAILED at once, nothing held', async () => {
    const { ledger, loop } = s!;
    const { v, dest, id } = await refusedWithdrawal(s!, { transaction: 'tx_malformed' });
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'FAILED' || o.refused !== undefined, 15_000);
    expect(done.status).toBe('FAILED');
    expect(done.refused).toBeUndefined();
    expect(done.failureReason).toMatch(/tx_malformed/);
    expect(ledger.account(dest)!.balance).toBe(10n * XLM);
  });
});

describe('Stellar: the invalidation of a refused withdrawal (INVALIDATE_REFUSED_AFTER_SECONDS)', () => {
  let s: Setup | undefined;
  beforeAll(async () => {
    s = await setUp({ INVALIDATE_REFUSED_AFTER_SECONDS: '1' });
  });
  afterAll(() => tearDown(s));

  it('a bump_sequence at its own number goes through custody and lands: FAILED, naming the refusal; the recipient got nothing, and the envelope can never land', async () => {
    const { ledger, loop } = s!;
    const { v, dest, id } = await refusedWithdrawal(s!, { transaction: 'tx_insufficient_balance' });
    const held = await loop.waitFor(v.vaultId, id, (o) => o.refused !== undefined);
    expect(held.refused.invalidateAfter).toBeDefined();
    const sequence = sequenceOf(held, ledger.passphrase);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'FAILED' || o.status === 'CONFIRMED', 30_000);
    expect(done.status, JSON.stringify(done.history)).toBe('FAILED');
    expect(done.failureReason).toMatch(
      /^cancelled: the cancel transaction [0-9a-f]{64} landed \(the original was refused by the node: tx_insufficient_balance: /,
    );
    expect(done.attempts.map((a: { kind: string; status: string }) => `${a.kind}:${a.status}`)).toEqual(['original:replaced', 'cancel:confirmed']);
    // The cancel was signed through the custody emulator: its own sign request.
    expect(done.attempts[1].operationID).toBeDefined();
    expect(ledger.account(dest)!.balance).toBe(10n * XLM);
    // The cancel took exactly A's number, nothing further (later withdrawals are not voided).
    expect(ledger.account(v.address)!.sequence).toBe(sequence);
    const late = ledger.submit(await signedEnvelope(loop, id));
    expect(late).toMatchObject({ kind: 'rejected', transaction: 'tx_bad_seq' });
    expect(ledger.account(dest)!.balance).toBe(10n * XLM);
  });
});

describe('Stellar: an envelope Horizon cannot decode', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger | undefined;
  afterAll(() => ledger?.stop());

  it('transaction_malformed (400, no result codes) is invalid by its own bytes: a refusal that proves it never lands, naming the node', async () => {
    const made = await signedOnSimulator(redis, prefix, 300, `malformed-${process.pid}`);
    ledger = made.sim;
    const malformed: typeof fetch = async (input, init) => {
      if (init?.method === 'POST' && new URL(String(input)).pathname === '/transactions') {
        const p = transactionMalformed(String(new URLSearchParams(String(init.body)).get('tx')));
        return new Response(JSON.stringify(p.body), { status: p.status, headers: { 'content-type': 'application/problem+json' } });
      }
      return fetch(input, init);
    };
    const err = await made
      .adaptor(malformed)
      .broadcast(made.signed)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NodeRejectionError);
    expect(provesNeverLands(err)).toBe(true);
    expect((err as NodeRejectionError).fields.node).toBe(new URL(made.sim.url).host);
  });
});
