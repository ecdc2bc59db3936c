import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { LedgerAdaptor, SignedTx } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { NodeRejectionError } from '../../src/platform/errors.js';
import { stellarFamily } from './index.js';
import { startStellarLedger, type LocalStellarLedger } from './local-node/index.js';
import { testRedis } from '../../test/helpers/redis.js';
import { signPayloads, testKey, vaultOf, type TestKey } from './test-kit.js';

/**
 * A run of one account's consecutive withdrawals through `broadcastMany` on the ledger
 * simulator: in order, each applied once, and looked up before its submission only where it
 * may have been applied already (the first of the run, or the one after a resend).
 */
describe('stellar broadcastMany (ledger simulator)', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger;
  let adaptor: LedgerAdaptor;
  let vault: TestKey;
  let dest: TestKey;
  let refs = 0;
  /** Horizon requests of the adaptor: `GET /transactions/<hash>` lookups and `POST /transactions` submissions. */
  let lookups: string[] = [];
  let submissions = 0;
  /** Submissions and sequence settlements, in the order they happened. */
  let steps: string[] = [];

  const counting: typeof fetch = async (input, init) => {
    const url = new URL(String(input));
    if (init?.method === 'POST' && url.pathname === '/transactions') {
      submissions++;
      steps.push('submit');
    } else if (url.pathname.startsWith('/transactions/')) lookups.push(url.pathname.slice('/transactions/'.length));
    return fetch(input, init);
  };
  const signedRun = async (n: number): Promise<SignedTx[]> => {
    const out: SignedTx[] = [];
    for (let i = 0; i < n; i++) {
      const unsigned = await adaptor.craft(vaultOf(vault), {
        reference: `run-${++refs}`,
        recipientAddress: dest.address,
        asset: adaptor.assets()[0]!,
        amount: 10_000_000n,
        fee: 'LOW',
      });
      out.push(adaptor.combine(unsigned, signPayloads(unsigned, vault))[0]!);
    }
    return out;
  };
  /** The transaction as Horizon holds it (asked without counting), or undefined. */
  const onLedger = async (tx: SignedTx) => {
    const res = await fetch(`${ledger.url}/transactions/${tx.txid}`);
    return res.ok ? ((await res.json()) as { source_account_sequence: string; successful: boolean }) : undefined;
  };
  const reset = () => {
    lookups = [];
    submissions = 0;
    steps = [];
  };
  /** Settles as Reservations does, noting each call; `fail` makes the next one fail as a Redis that went away. */
  class NotedReservations extends Reservations {
    fail = false;
    override async settleSequences(scope: string, ns: bigint[]): Promise<void> {
      steps.push(`settle ${ns.length}`);
      if (this.fail) throw new Error('Connection is closed.');
      return super.settleSequences(scope, ns);
    }
  }
  let reservations: NotedReservations;

  beforeAll(async () => {
    ledger = await startStellarLedger({ closeIntervalMs: 0 });
    vault = testKey();
    dest = testKey();
    await ledger.fund(vault.address, '100');
    await ledger.fund(dest.address, '10');
    reservations = new NotedReservations(redis, prefix);
    adaptor = stellarFamily.create('stellardev', stellarFamily.optionsSchema.parse({ horizonUrl: ledger.url, networkPassphrase: ledger.passphrase }), {
      logger: pino({ level: 'silent' }),
      fetch: counting,
      reservations,
    });
  });
  afterAll(async () => {
    await ledger.stop();
    redis.disconnect();
  });

  it('sends a run in order, each applied once, looking up only the first', async () => {
    const run = await signedRun(3);
    reset();
    const outcomes = await adaptor.broadcastMany!(run);
    expect(outcomes).toEqual(run.map((tx) => ({ ok: true, result: { txid: tx.txid, alreadyKnown: false } })));
    expect(lookups).toEqual([run[0]!.txid]);
    expect(submissions).toBe(3);
    const held = await Promise.all(run.map(onLedger));
    expect(held.map((t) => t?.successful)).toEqual([true, true, true]);
    const first = BigInt(held[0]!.source_account_sequence);
    expect(held.map((t) => BigInt(t!.source_account_sequence) - first)).toEqual([0n, 1n, 2n]);
  });

  it('after a transaction found applied, looks up the next one again; only what was new counts as new', async () => {
    const run = await signedRun(3);
    await adaptor.broadcast(run[0]!);
    reset();
    const outcomes = await adaptor.broadcastMany!(run);
    expect(outcomes.map((o) => o.ok && o.result.alreadyKnown)).toEqual([true, false, false]);
    expect(lookups).toEqual([run[0]!.txid, run[1]!.txid]);
    expect(submissions).toBe(2);
  });

  it('looks up a transaction that does not follow its predecessor, and stops at the first refusal', async () => {
    const run = await signedRun(4);
    reset();
    // Numbers s, s+2, s+3: the second is ahead of the account, so the run stops there.
    const outcomes = await adaptor.broadcastMany!([run[0]!, run[2]!, run[3]!]);
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toEqual({ ok: true, result: { txid: run[0]!.txid, alreadyKnown: false } });
    expect(outcomes[1]!.ok).toBe(false);
    expect(!outcomes[1]!.ok && outcomes[1]!.error).toBeInstanceOf(NodeRejectionError);
    expect(lookups.slice(0, 2)).toEqual([run[0]!.txid, run[2]!.txid]);
    expect(await onLedger(run[2]!)).toBeUndefined();
    expect(await onLedger(run[3]!)).toBeUndefined();
    // The rest, in order, goes out afterwards.
    reset();
    const rest = await adaptor.broadcastMany!([run[1]!, run[2]!, run[3]!]);
    expect(rest.map((o) => o.ok && o.result.alreadyKnown)).toEqual([false, false, false]);
    expect(lookups).toEqual([run[1]!.txid]);
  });

  it('settles the sequence numbers the ledger used once, after the run: no write between two sends', async () => {
    const run = await signedRun(3);
    reset();
    const outcomes = await adaptor.broadcastMany!(run);
    expect(outcomes.every((o) => o.ok)).toBe(true);
    expect(steps).toEqual(['submit', 'submit', 'submit', 'settle 3']);
  });

  it('a run whose numbers could not be settled counts as unanswered; sent again, each is found applied', async () => {
    const run = await signedRun(2);
    reset();
    reservations.fail = true;
    await expect(adaptor.broadcastMany!(run)).rejects.toThrow('Connection is closed.');
    reservations.fail = false;
    expect((await Promise.all(run.map(onLedger))).map((t) => t?.successful)).toEqual([true, true]);
    const again = await adaptor.broadcastMany!(run);
    expect(again.map((o) => o.ok && o.result.alreadyKnown)).toEqual([true, true]);
  });
});
