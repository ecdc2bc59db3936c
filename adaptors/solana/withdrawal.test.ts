import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { address, getAddressEncoder, getProgramDerivedAddress, isOffCurveAddress } from '@solana/kit';
import {
  ConflictError,
  InsufficientFundsError,
  InvalidArgumentError,
  NodeRejectionError,
  provesNeverLands,
  VerificationError,
} from '../../src/platform/errors.js';
import { formatAmount } from '../../src/ledger/amounts.js';
import type { LedgerAdaptor, VaultSource } from '../../src/ledger/adaptor.js';
import { minReservationMs, Reservations } from '../../src/ledger/reservations.js';
import { reservationKeys } from '../../src/platform/redis-keys.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { publicKeyHex } from '../../src/ledger/public-key.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { solanaFamily } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { associatedTokenAccount } from './logic/accounts.js';
import { nonceAccountAddress } from './logic/nonce.js';
import { setUpNonce, signWith, vaultOf } from './test-kit.js';

describe('solana withdrawals against the local node', () => {
  let node: LocalSolanaNode;
  let adaptor: LedgerAdaptor;
  let other: LedgerAdaptor;
  const signer = ed25519Signer();
  let source: VaultSource;
  const { redis, prefix } = testRedis();

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    const make = (p: string) =>
      solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
        logger: pino({ level: 'silent' }),
        fetch,
        reservations: new Reservations(redis, p),
      });
    adaptor = make(prefix);
    // Another set of reservations over the same ledger: a claim this one cannot see.
    other = make(`${prefix}other:`);
    const address = adaptor.addressFromPublicKey(signer.publicKey);
    source = { vaultId: 'v', addresses: [{ address, publicKey: signer.publicKey, keyId: signer.keyId }], changeAddress: address };
  });
  afterAll(async () => {
    redis.disconnect();
    await node.stop();
  });

  const intent = (reference: string, amount = 100_000_000n) => ({
    reference,
    recipientAddress: ed25519Address(),
    asset: adaptor.nativeAsset,
    amount,
    fee: 'MEDIUM',
  });
  const ed25519Address = () => adaptor.addressFromPublicKey(ed25519Signer().publicKey);
  const sign = (unsigned: Awaited<ReturnType<LedgerAdaptor['craft']>>) => {
    const p = unsigned.payloads[0]!;
    const s = signer.sign(p.digest);
    return adaptor.combine(unsigned, [{ payloadIndex: 0, ...verifySignature(p.digest, s.signature, s.v, signer.publicKey) }]);
  };

  /** A transfer from a vault of its own (funded, with its nonce account), crafted and signed. */
  async function signedTransfer(vaultId: string, reference: string) {
    const vault = ed25519Signer();
    const src = vaultOf(adaptor, vault, vaultId);
    await setUpNonce(adaptor, vault, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(src.changeAddress, 'SOL', 1_000_000_000n);
    const unsigned = await adaptor.craft(src, intent(reference));
    return { unsigned, signed: signWith(adaptor, vault, unsigned) };
  }

  it('without a nonce account: 409 naming the setup', async () => {
    await node.fund(source.changeAddress, 'SOL', 1_000_000_000n);
    const err = await adaptor.craft(source, intent('a')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ConflictError);
    expect((err as ConflictError).errCode).toBe('ERR_NONCE_ACCOUNT_MISSING');
  });

  it('signatures are checked once, as they come in; combine refuses a message other than the one signed and a payload of another key', async () => {
    await setUpNonce(adaptor, signer, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    const unsigned = await adaptor.craft(source, intent('b'));
    try {
      const digest = unsigned.payloads[0]!.digest;
      // The one signature check (src/ledger/signatures.ts) refuses a signature over anything but the stored message, and another key's.
      const wrong = signer.sign(`${digest}00`);
      expect(() => verifySignature(digest, wrong.signature, wrong.v, signer.publicKey)).toThrow(VerificationError);
      const stranger = ed25519Signer();
      expect(() => verifySignature(digest, stranger.sign(digest).signature, 0, signer.publicKey)).toThrow(VerificationError);
      // One byte of the message changed (the fee payer's key): signed, but not what was stored.
      const flipped = `${digest.slice(0, 10)}${((parseInt(digest.slice(10, 12), 16) ^ 1) & 0xff).toString(16).padStart(2, '0')}${digest.slice(12)}`;
      const tampered = { ...unsigned, payloads: [{ ...unsigned.payloads[0]!, digest: flipped }] };
      expect(() => sign(tampered)).toThrow(/not the message that was signed/);
      // A payload of another key, with that key's good signature over the stored message: not the vault's.
      const ofStranger = { ...unsigned, payloads: [{ ...unsigned.payloads[0]!, publicKey: publicKeyHex(stranger.publicKey) }] };
      const byStranger = stranger.sign(digest);
      expect(() =>
        adaptor.combine(ofStranger, [{ payloadIndex: 0, ...verifySignature(digest, byStranger.signature, byStranger.v, stranger.publicKey) }]),
      ).toThrow(/not signed by the vault/);
      // Nothing but 64 bytes goes into the transaction as its signature.
      expect(() => adaptor.combine(unsigned, [{ payloadIndex: 0, signature: new Uint8Array(63), recoveryId: 0 }])).toThrow(/64 bytes/);
    } finally {
      await adaptor.release(unsigned, 'b');
    }
  });

  it('a transfer whose nonce another transaction consumed can never land: FAILED', async () => {
    const a = await adaptor.craft(source, intent('c'));
    const b = await other.craft(source, intent('d'));
    expect(b.state).toMatchObject({ lifetime: (a.state as { lifetime: string }).lifetime });
    const [signedB] = sign(b);
    await other.broadcast(signedB!);
    const [signedA] = sign(a);
    // The proof is the status, read at the ledger's commitment; the node's refusal alone proves nothing.
    expect(await adaptor.txStatus(signedA!.txid, a)).toMatchObject({ state: 'failed', reason: /nonce advanced/, proofConfirmations: 1 });
    const refused = await adaptor.broadcast(signedA!).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(refused).toBeInstanceOf(NodeRejectionError);
    expect(provesNeverLands(refused)).toBe(false);
    node.facade.root();
    expect(await other.txStatus(signedB!.txid, b)).toMatchObject({ state: 'confirmed', confirmations: 1 });
  });

  it('a transfer the node took but dropped is unknown while its nonce is unused (so it is sent again), and lands when sent again', async () => {
    const { unsigned, signed } = await signedTransfer('dropped', 'i');
    node.facade.dropNextSend();
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: false });
    expect(await adaptor.txStatus(signed.txid, unsigned)).toEqual({ state: 'unknown', confirmations: 0 });
    await adaptor.broadcast(signed);
    node.facade.root();
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed' });
  });

  it('a first send goes straight to the node; a resend looks the signature up first, and one that landed is not sent again', async () => {
    const methods: string[] = [];
    const counting = solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
      logger: pino({ level: 'silent' }),
      fetch: async (url, init) => {
        methods.push((JSON.parse(String(init?.body)) as { method: string }).method);
        return fetch(url, init);
      },
      reservations: new Reservations(redis, prefix),
    });
    const { signed } = await signedTransfer('first-send', 'f');
    expect(await counting.broadcast(signed, { firstSend: true })).toEqual({ txid: signed.txid, alreadyKnown: false });
    expect(methods).toEqual(['sendTransaction']);
    methods.length = 0;
    expect(await counting.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(methods).toEqual(['getSignatureStatuses']);
    // A wrong hint costs round trips, never a second landing: the node refuses the spent nonce.
    methods.length = 0;
    expect(await counting.broadcast(signed, { firstSend: true })).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(methods[0]).toBe('sendTransaction');
    expect(node.facade.executed().filter((s) => s === signed.txid)).toHaveLength(1);
  });

  it('a landed transfer sent again through a node that lags behind the one that takes the send is already known, not expired', async () => {
    // Behind a load balancer the status lookup can reach a node that has not seen the block yet,
    // while the send reaches one whose nonce already moved on: "Blockhash not found".
    let hidden = 1;
    const lagging = solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
      logger: pino({ level: 'silent' }),
      fetch: async (url, init) => {
        const body = JSON.parse(String(init?.body)) as { id: number; method: string };
        if (body.method === 'getSignatureStatuses' && hidden > 0) {
          hidden -= 1;
          return new Response(JSON.stringify({ jsonrpc: '2.0', id: body.id, result: { context: { slot: 1 }, value: [null] } }), {
            headers: { 'content-type': 'application/json' },
          });
        }
        return fetch(url, init);
      },
      reservations: new Reservations(redis, prefix),
    });
    const { unsigned, signed } = await signedTransfer('landed', 'l');
    expect(await adaptor.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: false });
    expect(await lagging.broadcast(signed)).toEqual({ txid: signed.txid, alreadyKnown: true });
    expect(hidden).toBe(0);
    node.facade.root();
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'confirmed' });
  });

  it('a setup that never landed fails once its blockhash is past its last valid height', async () => {
    const vault = ed25519Signer();
    const address = adaptor.addressFromPublicKey(vault.publicKey);
    await node.fund(address, 'SOL', 100_000_000n);
    const src: VaultSource = { vaultId: 'w', addresses: [{ address, publicKey: vault.publicKey, keyId: vault.keyId }], changeAddress: address };
    const unsigned = await adaptor.craft(src, {
      reference: 'h',
      recipientAddress: await nonceAccountAddress(address),
      asset: adaptor.nativeAsset,
      amount: 1_500_000n,
      fee: 'LOW',
    });
    const p = unsigned.payloads[0]!;
    const s = vault.sign(p.digest);
    const [signed] = adaptor.combine(unsigned, [{ payloadIndex: 0, ...verifySignature(p.digest, s.signature, s.v, vault.publicKey) }]);
    // Never sent while its blockhash is valid: unknown, so the pipeline sends it (again).
    expect(await adaptor.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'unknown' });
    for (let i = 0; i < 151; i++) node.facade.nextSlot();
    expect(await adaptor.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'failed', reason: /blockhash expired/ });
    await expect(adaptor.broadcast(signed!)).rejects.toThrow(/BlockhashNotFound/);
    await adaptor.release(unsigned, 'h');
  });

  it('holds the durable nonce as long as a withdrawal may wait for its quorum, a week at least', async () => {
    const DAY = 24 * 3_600_000;
    const holding = (minReservationMs?: number) =>
      solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
        logger: pino({ level: 'silent' }),
        fetch,
        reservations: new Reservations(redis, prefix),
        ...(minReservationMs === undefined ? {} : { minReservationMs }),
      });
    const ttlOf = async (a: LedgerAdaptor, reference: string) => {
      const unsigned = await a.craft(source, intent(reference));
      const { scope, claim } = unsigned.state as { scope: string; claim: string };
      try {
        return await redis.pttl(reservationKeys(prefix).claim(scope, claim));
      } finally {
        await a.release(unsigned, reference);
      }
    };
    const thirtyDays = await ttlOf(holding(minReservationMs(30 * 24 * 3600)), 'hold-30d');
    expect(thirtyDays).toBeGreaterThan(30 * DAY + 3_600_000 - 60_000);
    const aWeek = await ttlOf(holding(minReservationMs(600)), 'hold-default');
    expect(aWeek).toBeGreaterThan(7 * DAY - 60_000);
    expect(aWeek).toBeLessThanOrEqual(7 * DAY);
  });

  it('a withdrawal that would leave the vault under its rent-exempt minimum is refused with `required` above `available`: amount, fee and the minimum', async () => {
    const vault = ed25519Signer();
    const src = vaultOf(adaptor, vault, 'rent');
    await setUpNonce(adaptor, vault, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    const held = 1_886_435_473n;
    await node.fund(src.changeAddress, 'SOL', held);
    const probe = await adaptor.craft(src, intent('rent-probe', 1_000_000n));
    await adaptor.release(probe, 'rent-probe');
    const fee = probe.fee;
    const rent = node.svm.minimumBalanceForRentExemption(0n);
    // 100 lamports would be left: under the minimum, and not nothing.
    const amount = held - fee - 100n;
    const err = (await adaptor.craft(src, intent('rent-short', amount)).catch((e: unknown) => e)) as InsufficientFundsError;
    expect(err).toBeInstanceOf(InsufficientFundsError);
    expect(err.fields).toMatchObject({
      asset: 'SOL',
      address: src.changeAddress,
      requiredBaseUnits: String(amount + fee + rent),
      availableBaseUnits: String(held),
      feeBaseUnits: String(fee),
    });
    expect(BigInt(err.fields.requiredBaseUnits as string)).toBeGreaterThan(held);
    expect(err.details).toContain(`or ${formatAmount(held - fee, 9)} SOL sent to empty it`);
    // More than it holds: the amount and fee, which are above what it holds.
    const over = (await adaptor.craft(src, intent('rent-over', held)).catch((e: unknown) => e)) as InsufficientFundsError;
    expect(over.fields).toMatchObject({ requiredBaseUnits: String(held + fee), availableBaseUnits: String(held) });
    // Emptied entirely, and keeping exactly the minimum: both go through.
    for (const [reference, ok] of [
      ['rent-empty', held - fee],
      ['rent-keep', held - fee - rent],
    ] as const) {
      const unsigned = await adaptor.craft(src, intent(reference, ok));
      await adaptor.release(unsigned, reference);
    }
  });

  it('SOL to a token account or a mint is refused even with consent; SOL to an off-curve address only with it; the nonce account is topped up without', async () => {
    // A vault whose nonce address is off the curve (half of them are): its top-up must still go through.
    let vault = ed25519Signer();
    while (!isOffCurveAddress(address(await nonceAccountAddress(adaptor.addressFromPublicKey(vault.publicKey))))) vault = ed25519Signer();
    const src = vaultOf(adaptor, vault, 'sol-recipients');
    await setUpNonce(adaptor, vault, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(src.changeAddress, 'SOL', 1_000_000_000n);
    await node.fund(src.changeAddress, 'USDC', 1n);
    const owner = ed25519Address();
    await node.fund(owner, 'USDC', 1n);
    const sol = (reference: string, recipientAddress: string, allowOffCurveRecipient?: boolean) =>
      adaptor.craft(src, { ...intent(reference, 10_000_000n), recipientAddress, ...(allowOffCurveRecipient ? { allowOffCurveRecipient } : {}) });

    for (const [what, recipient] of [
      ['a token account', await associatedTokenAccount(owner, node.usdc.mint)],
      ["the vault's own token account", await associatedTokenAccount(src.changeAddress, node.usdc.mint)],
      ['a mint', node.usdc.mint],
    ] as const) {
      for (const consent of [false, true]) {
        const err = await sol(`token-${what}-${consent}`, recipient, consent).catch((e: unknown) => e);
        expect(err, what).toBeInstanceOf(InvalidArgumentError);
        expect((err as InvalidArgumentError).fields, what).toEqual({ field: 'recipientAddress' });
        expect((err as InvalidArgumentError).details, what).toContain(`${recipient} is an account of the token program`);
      }
    }

    const [pda] = await getProgramDerivedAddress({
      programAddress: address('11111111111111111111111111111111'),
      seeds: ['byow-test', getAddressEncoder().encode(address(owner))],
    });
    const refused = await sol('pda-refused', pda).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(InvalidArgumentError);
    expect((refused as InvalidArgumentError).details).toContain(`the recipient ${pda} is off the ed25519 curve`);
    const paid = await sol('pda-paid', pda, true);
    await adaptor.broadcast(signWith(adaptor, vault, paid));
    expect(node.svm.getBalance(address(pda))).toBe(10_000_000n);

    const nonce = await nonceAccountAddress(src.changeAddress);
    const topUp = await sol('nonce-top-up', nonce);
    await adaptor.release(topUp, 'nonce-top-up');
  });

  it('custom priority fees are micro-lamports per compute unit, paid on the limit', async () => {
    const unsigned = await adaptor.craft(source, { ...intent('e'), fee: '1000000' });
    // 5,000 per signature + 1 lamport per CU on the SOL transfer's 2,000 CU limit.
    expect(unsigned.fee).toBe(7_000n);
    await adaptor.release(unsigned, 'e');
    await expect(adaptor.craft(source, { ...intent('f'), fee: 'FAST' })).rejects.toThrow(/Valid values: MEDIUM, HIGH, LOW/);
    await expect(adaptor.craft(source, intent('g', 10n ** 12n))).rejects.toThrow(/holds 0\.\d+ SOL/);
  });
});
