import { keccak256, Wallet, hexlify } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError, NodeRejectionError } from '../../../src/platform/errors.js';
import type { LedgerAdaptor, SendOutcome, SignedTx } from '../../../src/ledger/adaptor.js';
import { countedAdaptor, intent, newKey, sign, startHarness, waitReceipt, type Harness, type TestKey } from '../test-kit.js';

const ETH = 10n ** 18n;
const nonceOf = (state: unknown): number => Number((state as { nonce: string }).nonce);

/** Withdrawals of `key` crafted and signed one after another (consecutive nonces). */
async function signedBy(adaptor: LedgerAdaptor, key: TestKey, amounts: bigint[]) {
  const out: { signed: SignedTx; nonce: number; reference: string; unsigned: Awaited<ReturnType<LedgerAdaptor['craft']>> }[] = [];
  for (const amount of amounts) {
    const i = intent(adaptor, { amount });
    const unsigned = await adaptor.craft(key.source, i);
    out.push({ signed: adaptor.combine(unsigned, sign(unsigned, key))[0] as SignedTx, nonce: nonceOf(unsigned.state), reference: i.reference, unsigned });
  }
  return out;
}

/** broadcastMany: one account's signed transactions in JSON-RPC batches, each answered on its own. */
describe('ethereum broadcastMany', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('sends them in order, sendBatchSize per round trip, and settles each nonce it got through', async () => {
    const c = countedAdaptor(h, { sendBatchSize: 3 });
    const key = newKey(c.adaptor);
    await h.chain.funder.sendEth(key.address, ETH);
    const txs = await signedBy(c.adaptor, key, [1n, 2n, 3n, 4n, 5n]);
    c.reset();
    const outcomes = await (c.adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)(txs.map((t) => t.signed));
    expect(outcomes).toEqual(txs.map((t) => ({ ok: true, result: { txid: t.signed.txid, alreadyKnown: false } })));
    expect(c.counts).toEqual({ roundTrips: 2, calls: { eth_sendRawTransaction: 5 } });
    for (const t of txs) expect(BigInt((await waitReceipt(h, t.signed.txid)).blockNumber)).toBeGreaterThan(0n);
    // Settled: a release after the send gives no number back, so the next withdrawal takes nonce 5.
    await c.adaptor.release(txs[1]!.unsigned, txs[1]!.reference);
    const [next] = await signedBy(c.adaptor, key, [6n]);
    expect(next!.nonce).toBe(5);
    // Sent again, each is already known: success, not an error.
    const again = await (c.adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)(txs.slice(0, 2).map((t) => t.signed));
    expect(again).toEqual(txs.slice(0, 2).map((t) => ({ ok: true, result: { txid: t.signed.txid, alreadyKnown: true } })));
  });

  it('answers each on its own: a number taken by another transaction is refused between two the node takes', async () => {
    const a = h.adaptor();
    const key = newKey(a);
    await h.chain.funder.sendEth(key.address, ETH);
    // Nonce 0 crafted, then given back and crafted again for another amount: two transactions for one number.
    const [loser] = await signedBy(a, key, [7n]);
    await a.release(loser!.unsigned, loser!.reference);
    const [winner, after] = await signedBy(a, key, [8n, 9n]);
    expect([loser!.nonce, winner!.nonce, after!.nonce]).toEqual([0, 0, 1]);
    const outcomes = await (a.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)([winner!.signed, loser!.signed, after!.signed]);
    expect(outcomes[0]).toEqual({ ok: true, result: { txid: winner!.signed.txid, alreadyKnown: false } });
    expect((outcomes[1] as Extract<SendOutcome, { ok: false }>).error).toBeInstanceOf(NodeRejectionError);
    expect((outcomes[1] as { error: NodeRejectionError }).error.kind).toBe('nonce_taken');
    // The other transaction's block may still leave the chain: no proof that the loser never lands.
    expect((outcomes[1] as { error: NodeRejectionError }).error).toMatchObject({ invalidForever: false, fields: { node: new URL(h.chain.anvil.url).host } });
    expect(outcomes[2]).toEqual({ ok: true, result: { txid: after!.signed.txid, alreadyKnown: false } });
    await waitReceipt(h, after!.signed.txid);
  });

  it('ends the list at bytes it cannot read: nothing after them reaches the node', async () => {
    const c = countedAdaptor(h, {});
    const key = newKey(c.adaptor);
    await h.chain.funder.sendEth(key.address, ETH);
    const [first, last] = await signedBy(c.adaptor, key, [1n, 2n]);
    c.reset();
    const outcomes = await (c.adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)([
      first!.signed,
      { txIndex: 0, serialized: '0x02c0ffee', txid: `0x${'ab'.repeat(32)}` },
      last!.signed,
    ]);
    expect(outcomes).toHaveLength(2);
    expect(outcomes[0]).toEqual({ ok: true, result: { txid: first!.signed.txid, alreadyKnown: false } });
    expect((outcomes[1] as { error: unknown }).error).toBeInstanceOf(InvalidArgumentError);
    expect(c.counts.calls).toEqual({ eth_sendRawTransaction: 1 });
    expect(await h.rpc('eth_getTransactionByHash', [last!.signed.txid])).toBeNull();
  });
});

/**
 * A node that runs a batch's entries out of order and refuses gaps (Hardhat automining): each
 * batch reaches it backwards, entry by entry, the worst order there is.
 */
describe('ethereum broadcastMany on a node that takes a batch out of order and refuses gaps', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness('hardhat');
  });
  afterAll(() => h.close());

  const backwards = (async (input: string | URL | Request, init?: RequestInit) => {
    const body = JSON.parse(String(init?.body)) as unknown;
    if (!Array.isArray(body)) return fetch(input, init);
    const answers: unknown[] = [];
    for (const call of [...body].reverse()) answers.unshift(await (await fetch(input, { ...init, body: JSON.stringify(call) })).json());
    return new Response(JSON.stringify(answers), { status: 200, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;

  it('sends the overtaken ones again, a round each, until every one is in, in nonce order on the chain', async () => {
    const c = countedAdaptor(h, {}, backwards);
    const key = newKey(c.adaptor);
    await h.chain.funder.sendEth(key.address, ETH);
    const txs = await signedBy(c.adaptor, key, [1n, 2n, 3n]);
    c.reset();
    const outcomes = await (c.adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)(txs.map((t) => t.signed));
    expect(outcomes).toEqual(txs.map((t) => ({ ok: true, result: { txid: t.signed.txid, alreadyKnown: false } })));
    // Nonces 2 and 1 overtook 0 and were refused; then 2 overtook 1; then 2 went alone.
    expect(c.counts).toEqual({ roundTrips: 3, calls: { eth_sendRawTransaction: 6 } });
    const blocks = await Promise.all(txs.map(async (t) => BigInt((await waitReceipt(h, t.signed.txid)).blockNumber)));
    expect(blocks[0]! < blocks[1]! && blocks[1]! < blocks[2]!).toBe(true);
  });
});

/**
 * A node that cannot answer is not a node that refuses: its answer says nothing of the
 * transaction, and the same bytes are sent again later (the pipeline retries what is retryable,
 * and ends FAILED what is not).
 */
describe('ethereum broadcast when the node cannot answer', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  /** A node whose answers to the calls `fails(method)` picks are `error`, each entry of a batch on its own, while `on()`. */
  const answering = (fails: (method: string) => boolean, error: { code: number; message?: string }) => {
    let on = true;
    const through = (async (input: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { id: number; method: string } | { id: number; method: string }[];
      const calls = [body].flat();
      if (!on || !calls.every((c) => fails(c.method))) return fetch(input, init);
      const answers = calls.map((c) => ({ jsonrpc: '2.0', id: c.id, error }));
      return new Response(JSON.stringify(Array.isArray(body) ? answers : answers[0]), { status: 200, headers: { 'content-type': 'application/json' } });
    }) as typeof fetch;
    return { through, off: () => (on = false) };
  };
  const failure = (o: SendOutcome | undefined): unknown => (o && !o.ok ? o.error : undefined);

  it('a resend of a mined transaction whose "nonce too low" lookup errs is retryable, not a refusal; asked again, it is already known', async () => {
    const node = answering((m) => m === 'eth_getTransactionByHash', { code: -32000, message: 'transaction indexing is in progress' });
    const { adaptor } = countedAdaptor(h, {}, node.through);
    const key = newKey(adaptor);
    await h.chain.funder.sendEth(key.address, ETH);
    const [tx] = await signedBy(adaptor, key, [1000n]);
    // The first send went in and was mined; its answer could have been lost on the way back.
    await adaptor.broadcast(tx!.signed);
    await waitReceipt(h, tx!.signed.txid);
    const e = await adaptor.broadcast(tx!.signed).then(
      () => undefined,
      (x: unknown) => x,
    );
    expect(e).not.toBeInstanceOf(NodeRejectionError);
    expect(e).toMatchObject({ retryable: true, errCode: 'ERR_NODE_UNAVAILABLE' });
    expect((e as Error).message).toContain('transaction indexing is in progress');
    node.off();
    expect(await adaptor.broadcast(tx!.signed)).toEqual({ txid: tx!.signed.txid, alreadyKnown: true });
  });

  for (const error of [
    { code: -32005, message: 'daily request count exceeded, request rate limited' },
    { code: 429, message: 'Your app has exceeded its compute units per second capacity. If you have retries enabled, you can safely ignore this message.' },
    { code: -32005, message: 'Limit exceeded' },
    { code: -32000 },
  ]) {
    it(`a send answered ${error.code} "${error.message?.slice(0, 40) ?? '(no message)'}" is retryable, each entry of a batch; later the same bytes go in`, async () => {
      const node = answering((m) => m === 'eth_sendRawTransaction', error);
      const c = countedAdaptor(h, {}, node.through);
      const key = newKey(c.adaptor);
      await h.chain.funder.sendEth(key.address, ETH);
      const txs = await signedBy(c.adaptor, key, [1n, 2n]);
      const outcomes = await (c.adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)(txs.map((t) => t.signed));
      expect(outcomes).toHaveLength(2);
      for (const o of outcomes) {
        expect(failure(o)).not.toBeInstanceOf(NodeRejectionError);
        expect(failure(o)).toMatchObject({ retryable: true });
      }
      node.off();
      const again = await (c.adaptor.broadcastMany as NonNullable<LedgerAdaptor['broadcastMany']>)(txs.map((t) => t.signed));
      expect(again).toEqual(txs.map((t) => ({ ok: true, result: { txid: t.signed.txid, alreadyKnown: false } })));
    });
  }
});

/**
 * What a refusal proves. Only bytes that can never be valid end a signed withdrawal FAILED; an
 * answer about the node's state (no funds seen yet) or the node itself (on another chain) does not.
 */
describe('ethereum broadcast: what a refusal proves', () => {
  let h: Harness;

  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  const refusal = (p: Promise<unknown>) =>
    p.then(
      () => undefined,
      (e: unknown) => e as NodeRejectionError,
    );

  it("geth's insufficient funds from a node that has not seen the funding: a refusal, not a proof, naming the node", async () => {
    const message = 'insufficient funds for gas * price + value: balance 0, tx cost 1000000000000000, overshot 1000000000000000';
    const through = (async (input: string | URL | Request, init?: RequestInit) => {
      const body = JSON.parse(String(init?.body)) as { id: number; method: string };
      if (Array.isArray(body) || body.method !== 'eth_sendRawTransaction') return fetch(input, init);
      return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, error: { code: -32000, message } }), { status: 200 });
    }) as typeof fetch;
    const { adaptor } = countedAdaptor(h, {}, through);
    const key = newKey(adaptor);
    await h.chain.funder.sendEth(key.address, ETH);
    const [tx] = await signedBy(adaptor, key, [1000n]);
    const e = await refusal(adaptor.broadcast(tx!.signed));
    expect(e).toBeInstanceOf(NodeRejectionError);
    expect(e).toMatchObject({ kind: 'insufficient_funds', retryable: false, invalidForever: false, fields: { node: new URL(h.chain.anvil.url).host } });
  });

  it("bytes signed for another chain than the ledger's are invalid forever", async () => {
    const adaptor = h.adaptor();
    const key = newKey(adaptor);
    const raw = await new Wallet(hexlify(key.priv)).signTransaction({
      type: 2,
      chainId: 1,
      nonce: 0,
      to: key.address,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    const e = await refusal(adaptor.broadcast({ txIndex: 0, serialized: raw, txid: keccak256(raw) }));
    expect(e).toMatchObject({ kind: 'wrong_chain', invalidForever: true });
  });

  it("a node on another chain than the ledger's refusing bytes signed for the ledger's chain proves nothing of them", async () => {
    // The ledger says chain 1; the node answering is the dev chain (31337): a misconfigured back end.
    const adaptor = h.adaptor({ chainId: 1 });
    const key = newKey(adaptor);
    const raw = await new Wallet(hexlify(key.priv)).signTransaction({
      type: 2,
      chainId: 1,
      nonce: 0,
      to: key.address,
      value: 1n,
      gasLimit: 21000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    });
    const e = await refusal(adaptor.broadcast({ txIndex: 0, serialized: raw, txid: keccak256(raw) }));
    expect(e).toMatchObject({ kind: 'wrong_chain', invalidForever: false });
    expect(e!.details).toContain('the node is not');
  });
});
