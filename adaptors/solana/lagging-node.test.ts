import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NodeRejectionError, PermanentLedgerError, UnavailableError } from '../../src/platform/errors.js';
import type { LedgerAdaptor, UnsignedWithdrawal, VaultSource } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { solanaFamily } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { nonceAccountAddress } from './logic/nonce.js';
import { setUpNonce, signWith, vaultOf } from './test-kit.js';

/**
 * Behind a load balancer each request may reach another node, some of them behind. A
 * transaction is failed (txStatus) or refused for good (broadcast) only when a signature lookup
 * answered at the slot of the nonce (or blockhash) answer, or later, does not know it.
 */
describe('solana behind a load balancer with nodes that lag', () => {
  let node: LocalSolanaNode;
  let adaptor: LedgerAdaptor;
  let other: LedgerAdaptor;
  const { redis, prefix } = testRedis();
  const make = (f: typeof fetch, p = prefix) =>
    solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
      logger: pino({ level: 'silent' }),
      fetch: f,
      reservations: new Reservations(redis, p),
    });
  const json = (id: number, result: unknown) =>
    new Response(JSON.stringify({ jsonrpc: '2.0', id, result }), { headers: { 'content-type': 'application/json' } });
  /** The first `n` getSignatureStatuses reach a node that has not seen the block: `[null]` at an old slot. */
  const lagging = (n: number) => {
    const state = { hidden: n };
    const f: typeof fetch = async (url, init) => {
      const body = JSON.parse(String(init?.body)) as { id: number; method: string };
      if (body.method === 'getSignatureStatuses' && state.hidden > 0) {
        state.hidden -= 1;
        return json(body.id, { context: { slot: 1 }, value: [null] });
      }
      return fetch(url, init);
    };
    return { adaptor: make(f), state };
  };
  /**
   * Every getSignatureStatuses answered `[null]` by a node `offset` slots from the slot of the
   * last getMultipleAccounts answer (the nonce account): behind it when negative.
   */
  const statusNodeAt = (offset: number) => {
    let accountsSlot: number | undefined;
    const f: typeof fetch = async (url, init) => {
      const body = JSON.parse(String(init?.body)) as { id: number; method: string };
      const res = await fetch(url, init);
      if (body.method === 'getMultipleAccounts') accountsSlot = ((await res.clone().json()) as { result: { context: { slot: number } } }).result.context.slot;
      if (body.method !== 'getSignatureStatuses') return res;
      const real = ((await res.json()) as { result: { context: { slot: number } } }).result.context.slot;
      return json(body.id, { context: { slot: (accountsSlot ?? real) + offset }, value: [null] });
    };
    return make(f);
  };

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    adaptor = make(fetch);
    // Another set of reservations over the same ledger: a claim `adaptor` cannot see.
    other = make(fetch, `${prefix}other:`);
  });
  afterAll(async () => {
    redis.disconnect();
    await node.stop();
  });

  const intent = (reference: string) => ({
    reference,
    recipientAddress: adaptor.addressFromPublicKey(ed25519Signer().publicKey),
    asset: adaptor.nativeAsset,
    amount: 100_000_000n,
    fee: 'MEDIUM',
  });
  /** A funded vault with its nonce account. */
  async function vault(id: string) {
    const key = ed25519Signer();
    const src = vaultOf(adaptor, key, id);
    await setUpNonce(adaptor, key, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(src.changeAddress, 'SOL', 1_000_000_000n);
    return { key, src };
  }
  /** A transfer that landed. */
  async function landed(id: string) {
    const { key, src } = await vault(id);
    const unsigned = await adaptor.craft(src, intent(`${id}-${process.pid}`));
    const signed = signWith(adaptor, key, unsigned);
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: false });
    return { unsigned, signed };
  }

  it('a landed transfer sent again while both signature lookups reach a lagging node: retried, never refused; already known once the node caught up', async () => {
    const { unsigned, signed } = await landed('lag-broadcast');
    const { adaptor: behind, state } = lagging(2);
    const err = await behind.broadcast(signed).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).not.toBeInstanceOf(PermanentLedgerError);
    expect((err as UnavailableError).retryable).toBe(true);
    expect((err as Error).message).toMatch(/answered at slot 1, by a node behind/);
    expect(state.hidden).toBe(0);
    // The retry, the node caught up: already known, and it landed once.
    expect(await behind.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(node.facade.executed().filter((s) => s === signed.txid)).toHaveLength(1);
    node.facade.root();
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed' });
  });

  it('txStatus of a landed transfer, nonce read from an up-to-date node, signature from a lagging one: pending, not failed', async () => {
    const { unsigned, signed } = await landed('lag-status');
    node.facade.root();
    const { adaptor: behind, state } = lagging(2);
    expect(await behind.txStatus(signed.txid, unsigned)).toEqual({ state: 'pending', confirmations: 0 });
    expect(state.hidden).toBe(0);
    expect(await behind.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed', confirmations: 1 });
  });

  it('a transfer whose nonce another transaction consumed: a lookup behind the nonce answer decides nothing, one at its slot or later decides FAILED', async () => {
    const { key, src } = await vault('consumed');
    const a = await adaptor.craft(src, intent(`a-${process.pid}`));
    const b = await other.craft(src, intent(`b-${process.pid}`));
    expect((b.state as { lifetime: string }).lifetime).toBe((a.state as { lifetime: string }).lifetime);
    await other.broadcast(signWith(other, key, b));
    const signedA = signWith(adaptor, key, a);

    // One slot behind the nonce answer: not proven.
    const behind = statusNodeAt(-1);
    expect(await behind.txStatus(signedA.txid, a)).toEqual({ state: 'pending', confirmations: 0 });
    await expect(behind.broadcast(signedA)).rejects.toBeInstanceOf(UnavailableError);

    // At the nonce answer's slot, and past it: proven, whatever node answered, read at the
    // ledger's commitment (finalized): the proof carries the ledger's confirmations.
    for (const offset of [0, 5]) {
      const caughtUp = statusNodeAt(offset);
      expect(await caughtUp.txStatus(signedA.txid, a)).toMatchObject({
        state: 'failed',
        confirmations: 0,
        reason: /durable nonce advanced without this transaction \(finalized\)/,
        proofConfirmations: 1,
      });
      // The send is refused, and the refusal itself proves nothing (the status check above does).
      const err = await caughtUp.broadcast(signedA).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(NodeRejectionError);
      expect(err).toMatchObject({ kind: 'nonce_taken', retryable: false, invalidForever: false });
      expect((err as NodeRejectionError).fields.node).toMatch(/^127\.0\.0\.1:\d+$/);
    }
    expect(node.facade.executed()).not.toContain(signedA.txid);
  });

  it('a setup that landed at the end of its blockhash: with lagging lookups past its last valid height, pending and retried, never failed', async () => {
    const key = ed25519Signer();
    const address = adaptor.addressFromPublicKey(key.publicKey);
    await node.fund(address, 'SOL', 100_000_000n);
    const src: VaultSource = { vaultId: 'setup-lag', addresses: [{ address, publicKey: key.publicKey, keyId: key.keyId }], changeAddress: address };
    const unsigned: UnsignedWithdrawal = await adaptor.craft(src, {
      reference: `setup-lag-${process.pid}`,
      recipientAddress: await nonceAccountAddress(address),
      asset: adaptor.nativeAsset,
      amount: 1_500_000n,
      fee: 'LOW',
    });
    const signed = signWith(adaptor, key, unsigned);
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: false });
    // The chain moves past the blockhash's last valid height.
    for (let i = 0; i < 151; i++) node.facade.nextSlot();

    const status = lagging(2);
    expect(await status.adaptor.txStatus(signed.txid, unsigned)).toEqual({ state: 'pending', confirmations: 0 });
    expect(status.state.hidden).toBe(0);

    const send = lagging(2);
    const err = await send.adaptor.broadcast(signed).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(UnavailableError);
    expect(send.state.hidden).toBe(0);

    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed' });
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
  });
});
