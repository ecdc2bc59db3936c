import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidArgumentError, NodeRejectionError, provesNeverLands } from '../../src/platform/errors.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { solanaFamily } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { nonceAccountAddress } from './logic/nonce.js';
import { decodeSolanaTx, setUpNonce, signWith, vaultOf } from './test-kit.js';

/**
 * Replacements of a sent transfer on LiteSVM: both ride the same durable nonce, so whichever
 * lands first makes the other impossible for good (its nonce is gone), and the status of the
 * other carries that proof.
 */
describe('solana replace: cancel and speed-up on the same durable nonce', () => {
  let node: LocalSolanaNode;
  let adaptor: LedgerAdaptor;
  const { redis, prefix } = testRedis();

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    adaptor = solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc] }), {
      logger: pino({ level: 'silent' }),
      fetch,
      reservations: new Reservations(redis, prefix),
    });
  });
  afterAll(async () => {
    redis.disconnect();
    await node.stop();
  });

  /** A funded vault with its nonce account, and a signed (unsent) transfer of 0.1 SOL to a fresh recipient. */
  async function transfer(vaultId: string) {
    const key = ed25519Signer();
    const source = vaultOf(adaptor, key, vaultId);
    await setUpNonce(adaptor, key, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(source.changeAddress, 'SOL', 1_000_000_000n);
    const to = adaptor.addressFromPublicKey(ed25519Signer().publicKey);
    const unsigned = await adaptor.craft(source, {
      reference: `${vaultId}-${process.pid}`,
      recipientAddress: to,
      asset: adaptor.nativeAsset,
      amount: 100_000_000n,
      fee: '10',
    });
    return { key, source, to, unsigned, signed: signWith(adaptor, key, unsigned) };
  }
  const lamports = (a: string) => node.svm.getBalance(a as never) ?? 0n;

  it('cancel: only AdvanceNonceAccount, paid by the vault; once it lands the original can never land, proven at the commitment', async () => {
    const { key, source, to, unsigned, signed } = await transfer('cancel');
    const cancel = await adaptor.replace!({ kind: 'cancel', unsigned, signed: [signed], source });
    expect(cancel.fee).toBe(5_000n);
    expect(cancel.state).toMatchObject({ lifetime: (unsigned.state as { lifetime: string }).lifetime });
    const cancelled = signWith(adaptor, key, cancel);
    const decoded = decodeSolanaTx(cancelled);
    expect(decoded).toMatchObject({ feePayer: source.changeAddress, createsTokenAccount: false, microLamports: 0n });
    expect(decoded.programs).toEqual(['11111111111111111111111111111111']);
    expect(decoded.solTransfer).toBeUndefined();
    // Another cancel would be the very same transaction.
    await expect(adaptor.replace!({ kind: 'cancel', unsigned: cancel, signed: [cancelled], source })).rejects.toMatchObject({ errCode: 'ERR_NOT_REPLACEABLE' });

    const before = lamports(source.changeAddress);
    expect(await adaptor.broadcast(cancelled)).toEqual({ txid: cancelled.txid, alreadyKnown: false });
    node.facade.root();
    expect(await adaptor.txStatus(cancelled.txid, cancel)).toMatchObject({ state: 'confirmed', confirmations: 1 });
    expect(lamports(source.changeAddress)).toBe(before - 5_000n);
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'failed', reason: /durable nonce advanced/, proofConfirmations: 1 });
    const refused = await adaptor.broadcast(signed).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NodeRejectionError);
    expect(provesNeverLands(refused)).toBe(false);
    expect(lamports(to)).toBe(0n);
    expect(await nonceAccountAddress(source.changeAddress)).toBe((unsigned.state as { nonceAccount: string }).nonceAccount);
  });

  it('the original landed first: the cancel can never land, and the recipient is paid once', async () => {
    const { key, source, to, unsigned, signed } = await transfer('first');
    const cancel = await adaptor.replace!({ kind: 'cancel', unsigned, signed: [signed], source });
    const cancelled = signWith(adaptor, key, cancel);
    await adaptor.broadcast(signed);
    expect(await adaptor.txStatus(cancelled.txid, cancel)).toMatchObject({ state: 'failed', proofConfirmations: 1 });
    expect(await adaptor.broadcast(cancelled).catch((e: unknown) => e)).toBeInstanceOf(NodeRejectionError);
    expect(lamports(to)).toBe(100_000_000n);
  });

  it('speed-up: the same transfer at a higher compute-unit price; a lower asked price is refused with the minimum', async () => {
    const { key, source, to, unsigned, signed } = await transfer('speed');
    await expect(adaptor.replace!({ kind: 'speed-up', unsigned, signed: [signed], source, fee: '10' })).rejects.toBeInstanceOf(InvalidArgumentError);
    const faster = await adaptor.replace!({ kind: 'speed-up', unsigned, signed: [signed], source, fee: '5000' });
    const sped = signWith(adaptor, key, faster);
    const [was, now] = [decodeSolanaTx(signed), decodeSolanaTx(sped)];
    expect([was.microLamports, now.microLamports]).toEqual([10n, 5000n]);
    expect(now.solTransfer).toEqual(was.solTransfer);
    expect(now.computeUnitLimit).toBe(was.computeUnitLimit);
    // The priority fee is paid on the limit, rounded up to whole lamports: 2,000 CU × 5,000 µ = 10, × 10 µ = 1.
    expect(now.computeUnitLimit).toBe(2_000);
    expect(faster.fee - unsigned.fee).toBe(9n);
    await adaptor.broadcast(sped);
    expect(await adaptor.txStatus(signed.txid, unsigned)).toMatchObject({ state: 'failed', proofConfirmations: 1 });
    expect(lamports(to)).toBe(100_000_000n);
  });

  it('the nonce setup is not replaced', async () => {
    const key = ed25519Signer();
    const source = vaultOf(adaptor, key, 'setup-only');
    await node.fund(source.changeAddress, 'SOL', 100_000_000n);
    const setup = await adaptor.craft(source, {
      reference: `setup-only-${process.pid}`,
      recipientAddress: await nonceAccountAddress(source.changeAddress),
      asset: adaptor.nativeAsset,
      amount: 1_500_000n,
      fee: 'LOW',
    });
    await expect(adaptor.replace!({ kind: 'cancel', unsigned: setup, signed: [signWith(adaptor, key, setup)], source })).rejects.toBeInstanceOf(ConflictError);
  });
});
