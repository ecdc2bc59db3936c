import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { testRedis } from '../../test/helpers/redis.js';
import type { LocalStellarLedger } from './local-node/index.js';
import { HISTORY_PAGE_SIZE, HISTORY_PAGES, UNPROVEN_EXPIRY_GRACE_MS } from './logic/expiry.js';
import { stellarState } from './logic/state.js';
import { signedOnSimulator, signPayloads, testKey, vaultOf, type SignedOnSimulator } from './test-kit.js';

/**
 * A transaction Horizon does not find after its upper time bound while its source account's
 * sequence number has reached ours: which transaction took the number is read from the
 * account's history (`/accounts/{id}/transactions`). Ours (the lookup by hash lags): pending.
 * Another (one this service did not build): failed, replaced by it. And a source account that
 * is gone: unknown until the one-hour fallback, then failed.
 */

const TIMEOUT_S = 60;
const UNKNOWN = { state: 'unknown', confirmations: 0 };
const PENDING = { state: 'pending', confirmations: 0 };

interface HistoryRecord {
  hash: string;
  paging_token: string;
  source_account: string;
  source_account_sequence: string;
  successful: boolean;
  inner_transaction?: { hash: string };
}

/** A fetch that answers `paths` itself (the rest from the live simulator), recording every URL asked for. */
function routed(paths: (url: URL) => Response | undefined, seen: URL[] = []): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    seen.push(url);
    return paths(url) ?? fetch(input, init);
  };
}

const notFound = () =>
  new Response(JSON.stringify({ type: 'https://stellar.org/horizon-errors/not_found', title: 'Resource Missing', status: 404 }), {
    status: 404,
    headers: { 'content-type': 'application/problem+json' },
  });

const page = (records: unknown[]) =>
  new Response(JSON.stringify({ _links: {}, _embedded: { records } }), { status: 200, headers: { 'content-type': 'application/hal+json' } });

describe('Stellar txStatus after the bound with the sequence number spent', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger | undefined;
  let refs = 0;

  afterEach(async () => {
    await ledger?.stop();
    ledger = undefined;
  });

  async function signedWithdrawal(): Promise<SignedOnSimulator & { sequence: string }> {
    const made = await signedOnSimulator(redis, prefix, TIMEOUT_S, `seq-${process.pid}-${++refs}`);
    ledger = made.sim;
    return { ...made, sequence: stellarState.decode(made.unsigned.state).sequence };
  }

  /** The account's history as the simulator serves it, newest first. */
  const history = async (sim: LocalStellarLedger, account: string, limit = 200) =>
    (
      (await (await fetch(`${sim.url}/accounts/${account}/transactions?order=desc&limit=${limit}&include_failed=true`)).json()) as {
        _embedded: { records: HistoryRecord[] };
      }
    )._embedded.records;

  it('a sequence number taken by a transaction this service did not build ends failed, replaced by it, once past the bound', async () => {
    const { sim, vault, unsigned, signed, sequence, adaptor } = await signedWithdrawal();
    await sim.manageData(vault.keypair, 'note', 'taken'); // the same key, outside this service: takes our number
    const [taker] = await history(sim, vault.address, 1);
    expect([taker!.source_account, taker!.source_account_sequence]).toEqual([vault.address, sequence]);
    expect(taker!.hash).not.toBe(signed.txid);
    // Before the bound too: the account's number is past ours as of a closed ledger, and the
    // ledger holding the taker proves it (1 confirmation: the latest ledger is the taker's).
    const replaced = (proofConfirmations: number) => ({
      state: 'failed',
      confirmations: 0,
      reason: `replaced: sequence ${sequence} used by transaction ${taker!.hash}`,
      spentBy: taker!.hash,
      proofConfirmations,
    });
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual(replaced(1));
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual(replaced(2));
    // History never changes once visible: days later it is the same answer, deeper.
    sim.advanceTime(3 * 86_400);
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual(replaced(3));
  });

  it('a failed transaction that took the number counts too (the history is read with include_failed)', async () => {
    const { sim, vault, unsigned, signed, sequence, adaptor } = await signedWithdrawal();
    // Removing a data entry that does not exist: applied as failed, fee and sequence number spent.
    await expect(sim.manageData(vault.keypair, 'absent', null)).rejects.toThrow(/op_data_name_not_found/);
    expect(sim.account(vault.address)!.sequence.toString()).toBe(sequence);
    const [taker] = await history(sim, vault.address, 1);
    expect(taker!.successful).toBe(false);
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: `replaced: sequence ${sequence} used by transaction ${taker!.hash}`,
      spentBy: taker!.hash,
      proofConfirmations: expect.any(Number),
    });
  });

  it('the taker further back than one page is found through the cursor, past records where the account only receives', async () => {
    const { sim, vault, unsigned, signed, sequence, adaptor } = await signedWithdrawal();
    await sim.manageData(vault.keypair, 'note', 'taken');
    const [taker] = await history(sim, vault.address, 1);
    for (let i = 0; i < HISTORY_PAGE_SIZE + 5; i++) await sim.fund(vault.address, '1');
    sim.advanceTime(TIMEOUT_S * 2);
    const seen: URL[] = [];
    const status = await adaptor(routed(() => undefined, seen)).txStatus(signed.txid, unsigned);
    expect(status).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: `replaced: sequence ${sequence} used by transaction ${taker!.hash}`,
      spentBy: taker!.hash,
      proofConfirmations: expect.any(Number),
    });
    const pages = seen.filter((u) => u.pathname === `/accounts/${vault.address}/transactions`);
    expect(pages.map((u) => [u.searchParams.get('order'), u.searchParams.get('limit'), u.searchParams.get('include_failed')])).toEqual([
      ['desc', String(HISTORY_PAGE_SIZE), 'true'],
      ['desc', String(HISTORY_PAGE_SIZE), 'true'],
    ]);
    expect(pages[0]!.searchParams.get('cursor')).toBeNull();
    expect(pages[1]!.searchParams.get('cursor')).toMatch(/^\d+$/);
  });

  it("the search stops at the account's first sequence number below ours, and skips records of other sources", async () => {
    const { sim, vault, unsigned, signed, sequence, adaptor } = await signedWithdrawal();
    await sim.manageData(vault.keypair, 'note', 'taken'); // spends the number; the history below is made up
    sim.advanceTime(TIMEOUT_S * 2);
    const seq = BigInt(sequence);
    const other = testKey().address;
    const record = (i: number, source: string, s: bigint): HistoryRecord => ({
      hash: i.toString(16).padStart(64, 'a'),
      paging_token: String(1_000_000n - BigInt(i)),
      source_account: source,
      source_account_sequence: s.toString(),
      successful: true,
    });
    // A full page: a fee-bump the vault paid around another account's transaction at the same
    // number (its source is that account), receipts, then the vault's own number below ours.
    const first = [
      record(0, other, seq),
      ...Array.from({ length: HISTORY_PAGE_SIZE - 2 }, (_, i) => record(i + 1, other, 7n)),
      record(HISTORY_PAGE_SIZE - 1, vault.address, seq - 1n),
    ];
    const seen: URL[] = [];
    const made = routed((u) => (u.pathname === `/accounts/${vault.address}/transactions` ? page(first) : undefined), seen);
    expect(await adaptor(made).txStatus(signed.txid, unsigned)).toEqual(PENDING);
    expect(seen.filter((u) => u.pathname.endsWith('/transactions') && u.pathname.startsWith('/accounts/'))).toHaveLength(1);
  });

  it(`reads at most ${HISTORY_PAGES} pages; a taker not among them leaves it pending`, async () => {
    const { sim, vault, unsigned, signed, adaptor } = await signedWithdrawal();
    await sim.manageData(vault.keypair, 'note', 'taken');
    sim.advanceTime(TIMEOUT_S * 2);
    const other = testKey().address;
    const seen: URL[] = [];
    const endless = routed((u) => {
      if (u.pathname !== `/accounts/${vault.address}/transactions`) return undefined;
      const top = BigInt(u.searchParams.get('cursor') ?? '10000000');
      return page(
        Array.from({ length: HISTORY_PAGE_SIZE }, (_, i) => ({
          hash: String(top - 1n - BigInt(i)).padStart(64, '0'),
          paging_token: String(top - 1n - BigInt(i)),
          source_account: other,
          source_account_sequence: '5',
          successful: true,
        })),
      );
    }, seen);
    expect(await adaptor(endless).txStatus(signed.txid, unsigned)).toEqual(PENDING);
    const cursors = seen.filter((u) => u.pathname === `/accounts/${vault.address}/transactions`).map((u) => u.searchParams.get('cursor'));
    expect(cursors).toEqual([null, ...Array.from({ length: HISTORY_PAGES - 1 }, (_, k) => String(10_000_000n - BigInt((k + 1) * HISTORY_PAGE_SIZE)))]);
  });

  it('our own transaction: pending while the lookup by hash lags, also while the history lags', async () => {
    const { sim, vault, unsigned, signed, adaptor } = await signedWithdrawal();
    const before = await (await fetch(`${sim.url}/accounts/${vault.address}/transactions?order=desc&limit=${HISTORY_PAGE_SIZE}&include_failed=true`)).text();
    await adaptor().broadcast(signed);
    sim.advanceTime(TIMEOUT_S * 2);
    const lookupLags = (u: URL) => (u.pathname === `/transactions/${signed.txid}` ? notFound() : undefined);
    expect(await adaptor(routed(lookupLags)).txStatus(signed.txid, unsigned)).toEqual(PENDING);
    // The history answered by an instance from before it landed: no record with our number.
    const bothLag = (u: URL) =>
      lookupLags(u) ??
      (u.pathname === `/accounts/${vault.address}/transactions`
        ? new Response(before, { status: 200, headers: { 'content-type': 'application/hal+json' } })
        : undefined);
    expect(await adaptor(routed(bothLag)).txStatus(signed.txid, unsigned)).toEqual(PENDING);
    expect((await adaptor().txStatus(signed.txid, unsigned)).state).toBe('confirmed');
  });

  it('a source account that is gone (merged) is unknown until the one-hour fallback, then failed', async () => {
    const { sim, vault, unsigned, signed, adaptor } = await signedWithdrawal();
    const gone = routed((u) => (u.pathname === `/accounts/${vault.address}` ? notFound() : undefined));
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await adaptor(gone).txStatus(signed.txid, unsigned)).toEqual(UNKNOWN);
    sim.advanceTime(UNPROVEN_EXPIRY_GRACE_MS / 1000);
    expect(await adaptor(gone).txStatus(signed.txid, unsigned)).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: 'expired: time bounds passed; the source account no longer exists',
      proofConfirmations: 1,
    });
  });
  it('our transaction wrapped in a fee-bump someone else paid (the signed envelope is public once sent) landed: confirmed, not a conflict', async () => {
    const { sim, unsigned, signed, adaptor } = await signedWithdrawal();
    const stranger = testKey();
    await sim.fund(stranger.address, '10');
    const inner = TransactionBuilder.fromXDR(Buffer.from(signed.serialized, 'hex').toString('base64'), sim.passphrase) as Transaction;
    const bump = TransactionBuilder.buildFeeBumpTransaction(stranger.keypair, '1000', inner, sim.passphrase);
    bump.sign(stranger.keypair);
    sim.submit(bump.toXDR());
    const status = await adaptor().txStatus(signed.txid, unsigned);
    expect(status).toMatchObject({ state: 'confirmed' });
    expect(status.blockHeight).toBeGreaterThan(0);
  });
});

describe('Stellar txStatus after the bound: our own fee-bump speed-up and its original', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger | undefined;

  afterEach(async () => {
    await ledger?.stop();
    ledger = undefined;
  });

  /** An original (H1) and a fee-bump speed-up around it (H2), both signed, neither sent. */
  async function withSpeedUp() {
    const { sim, vault, dest, unsigned, signed, adaptor } = await signedOnSimulator(redis, prefix, TIMEOUT_S, `bump-${process.pid}-${Date.now()}`);
    ledger = sim;
    const a = adaptor();
    const bump = await a.replace!({ kind: 'speed-up', unsigned, signed: [signed!], source: vaultOf(vault) });
    const [bumped] = a.combine(bump, signPayloads(bump, vault));
    const { sequence } = stellarState.decode(unsigned.state);
    return { sim, vault, dest, adaptor, unsigned, signed: signed!, bump, bumped: bumped!, sequence };
  }

  it('the original landed without its fee-bump: the fee-bump attempt is spent by the original (ours), not by a stranger', async () => {
    const { sim, adaptor, unsigned, signed, bump, bumped, sequence } = await withSpeedUp();
    await adaptor().broadcast(signed);
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await adaptor().txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed' });
    expect(await adaptor().txStatus(bumped.txid, bump)).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: `replaced: sequence ${sequence} used by transaction ${signed.txid}, the one this fee-bump wraps, which landed without it`,
      spentBy: signed.txid,
      proofConfirmations: expect.any(Number),
    });
  });

  it('a second fee-bump of the same original landed: the first fee-bump attempt is spent by it', async () => {
    const { sim, vault, adaptor, signed, bump, bumped, sequence } = await withSpeedUp();
    const a = adaptor();
    const again = await a.replace!({ kind: 'speed-up', unsigned: bump, signed: [bumped], source: vaultOf(vault) });
    const [second] = a.combine(again, signPayloads(again, vault));
    await a.broadcast(second!);
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await a.txStatus(second!.txid, again)).toMatchObject({ state: 'confirmed' });
    expect(await a.txStatus(bumped.txid, bump)).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: `replaced: sequence ${sequence} used by transaction ${second!.txid}, another fee-bump of the one this fee-bump wraps (${signed.txid})`,
      spentBy: second!.txid,
      proofConfirmations: expect.any(Number),
    });
  });

  it('the fee-bump landed and both lookups by hash lag: both attempts pending (the record is ours for each)', async () => {
    const { sim, adaptor, unsigned, signed, bump, bumped } = await withSpeedUp();
    await adaptor().broadcast(bumped);
    sim.advanceTime(TIMEOUT_S * 2);
    const lag = routed((u) => (u.pathname === `/transactions/${signed.txid}` || u.pathname === `/transactions/${bumped.txid}` ? notFound() : undefined));
    expect(await adaptor(lag).txStatus(signed.txid, unsigned)).toEqual(PENDING);
    expect(await adaptor(lag).txStatus(bumped.txid, bump)).toEqual(PENDING);
    // Caught up: the fee-bump confirmed, the original included inside it.
    expect(await adaptor().txStatus(bumped.txid, bump)).toMatchObject({ state: 'confirmed' });
    expect(await adaptor().txStatus(signed.txid, unsigned)).toMatchObject({ state: 'failed', spentBy: bumped.txid });
  });
});
