import { afterEach, describe, expect, it } from 'vitest';
import { testRedis } from '../../test/helpers/redis.js';
import type { LocalStellarLedger } from './local-node/index.js';
import { signedOnSimulator, type SignedOnSimulator } from './test-kit.js';

/**
 * Horizon behind a load balancer: the answers to one status check can come from instances at
 * different ledgers. A lagging instance is played by answers recorded from the simulator at an
 * earlier ledger (exactly what it served then, headers included); the others come live.
 */

interface Recorded {
  status: number;
  body: string;
  latestLedger: string | null;
}

const EXPIRED = { state: 'failed', confirmations: 0, reason: 'expired: time bounds passed', proofConfirmations: expect.any(Number) };
const UNKNOWN = { state: 'unknown', confirmations: 0 };
const TIMEOUT_S = 60;

async function record(url: string): Promise<Recorded> {
  const res = await fetch(url);
  return { status: res.status, body: await res.text(), latestLedger: res.headers.get('latest-ledger') };
}

function replay(r: Recorded, latestLedger = r.latestLedger): Response {
  const headers = new Headers({ 'content-type': r.status >= 400 ? 'application/problem+json' : 'application/hal+json' });
  if (latestLedger !== null) headers.set('latest-ledger', latestLedger);
  return new Response(r.body, { status: r.status, headers });
}

/** A fetch that answers the paths `lagging` knows from there, and the rest from the live simulator, as `live` shapes it. */
function balancer(lagging: Record<string, () => Response>, live: (res: Response) => Response = (res) => res): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input));
    const stale = lagging[url.pathname];
    return stale ? stale() : live(await fetch(input, init));
  };
}

/** The live answer with its Latest-Ledger header replaced (`null` strips it, as a proxy may). */
const withHeader = (latestLedger: string | null) => (res: Response) => {
  const headers = new Headers(res.headers);
  if (latestLedger === null) headers.delete('latest-ledger');
  else headers.set('latest-ledger', latestLedger);
  return new Response(res.body, { status: res.status, headers });
};

describe('Stellar txStatus behind load-balanced Horizon instances at different ledgers', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger | undefined;
  let refs = 0;

  afterEach(async () => {
    await ledger?.stop();
    ledger = undefined;
  });

  /** A fresh simulator (its clock is moved past time bounds), a funded vault and a signed withdrawal bounded TIMEOUT_S ahead. */
  async function signedWithdrawal(): Promise<SignedOnSimulator> {
    const made = await signedOnSimulator(redis, prefix, TIMEOUT_S, `lag-${process.pid}-${++refs}`);
    ledger = made.sim;
    return made;
  }

  const latestSequence = async (sim: LocalStellarLedger) =>
    ((await (await fetch(`${sim.url}/ledgers?order=desc&limit=1`)).json()) as { _embedded: { records: { sequence: number }[] } })._embedded.records[0]!
      .sequence;

  it('a transaction that landed before its bound is not failed when the "not found" comes from an instance that lags behind', async () => {
    const { sim, vault, dest, unsigned, signed, adaptor } = await signedWithdrawal();
    const before = await latestSequence(sim);
    // What an instance that stays at this ledger answers: not found, and the account one below our sequence number.
    const txPath = `/transactions/${signed.txid}`;
    const accountPath = `/accounts/${vault.address}`;
    const laggingTx = await record(`${sim.url}${txPath}`);
    const laggingAccount = await record(`${sim.url}${accountPath}`);
    expect(laggingTx.status).toBe(404);
    // Like Horizon: the account (a state endpoint) says which ledger it is as of; the transaction lookup (history) does not.
    expect([laggingAccount.latestLedger, laggingTx.latestLedger]).toEqual([String(before), null]);

    const paid = sim.account(dest.address)!.balance;
    expect(await adaptor().broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: false });
    const landed = before + 1;
    expect(sim.account(dest.address)!.balance).toBe(paid + 50_000_000n);
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await latestSequence(sim)).toBe(landed + 1);

    // The latest ledger (closed after the bound) from an up-to-date instance, everything else from the lagging one.
    const bothLag = adaptor(balancer({ [txPath]: () => replay(laggingTx), [accountPath]: () => replay(laggingAccount) }));
    expect(await bothLag.txStatus(signed.txid, unsigned)).toEqual(UNKNOWN);
    // Its "not found" saying which older ledger it is as of changes nothing.
    const saysOlder = adaptor(balancer({ [txPath]: () => replay(laggingTx, String(before)), [accountPath]: () => replay(laggingAccount) }));
    expect(await saysOlder.txStatus(signed.txid, unsigned)).toEqual(UNKNOWN);
    // Only the transaction lookup lags: the account, as of the latest ledger, has spent the sequence number.
    const txLags = adaptor(balancer({ [txPath]: () => replay(laggingTx) }));
    expect(await txLags.txStatus(signed.txid, unsigned)).toEqual({ state: 'pending', confirmations: 0 });
    // Once the instance answering has caught up, it is confirmed where it landed, before the bound.
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual({ state: 'confirmed', confirmations: 2, blockHeight: landed });
  });

  it('a transaction that never landed ends failed once an instance past the bound does not have it', async () => {
    const { sim, vault, unsigned, signed, adaptor } = await signedWithdrawal();
    const accountPath = `/accounts/${vault.address}`;
    const laggingAccount = await record(`${sim.url}${accountPath}`);
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual(UNKNOWN);
    sim.advanceTime(TIMEOUT_S * 2);
    const pastBound = await latestSequence(sim);

    // Every instance at the latest ledger: the account's sequence number is unspent as of a ledger past the bound.
    expect(await adaptor().txStatus(signed.txid, unsigned)).toEqual(EXPIRED);
    // A "not found" that says it is as of the latest ledger is proof on its own, even with the account answer lagging.
    const txSays = (asOf: string) => adaptor(balancer({ [accountPath]: () => replay(laggingAccount) }, withHeader(asOf)));
    expect(await txSays(String(pastBound)).txStatus(signed.txid, unsigned)).toEqual(EXPIRED);
    // As of an earlier ledger: proof only if that ledger closed after the bound (read from its record).
    sim.closeLedger();
    expect(await txSays(String(pastBound)).txStatus(signed.txid, unsigned)).toEqual(EXPIRED);
    expect(await txSays(String(pastBound - 1)).txStatus(signed.txid, unsigned)).toEqual(UNKNOWN);
  });

  it('without Latest-Ledger anywhere (a proxy strips it), a transaction that never landed is unknown until an hour past its bound, then failed', async () => {
    const { sim, unsigned, signed, adaptor } = await signedWithdrawal();
    const stripped = adaptor(balancer({}, withHeader(null)));
    sim.advanceTime(TIMEOUT_S * 2);
    expect(await stripped.txStatus(signed.txid, unsigned)).toEqual(UNKNOWN);
    sim.advanceTime(3600);
    expect(await stripped.txStatus(signed.txid, unsigned)).toEqual(EXPIRED);
  });
});
