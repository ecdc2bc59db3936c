import type { Address } from '@solana/kit';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { Reservations } from '../../src/ledger/reservations.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { solanaFamily } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { setUpNonce, signWith, vaultOf } from './test-kit.js';

/**
 * txStatus through the local node's commitment model (no fake RPC): a withdrawal is confirmed
 * only once its transaction reaches the ledger's `commitment`, and one that landed with an
 * error is failed with the node's error, final at that same commitment.
 */
describe('solana txStatus as the node moves a transaction through its commitment levels', () => {
  let node: LocalSolanaNode;
  let atFinalized: LedgerAdaptor;
  let atConfirmed: LedgerAdaptor;
  const { redis, prefix } = testRedis();

  beforeAll(async () => {
    // No clock: the test produces the blocks that confirm and root.
    node = await startLocalSolanaNode({ slotMs: 0, finalityDepth: 2 });
    const make = (commitment: string, p: string) =>
      solanaFamily.create('solanadev', solanaFamily.optionsSchema.parse({ rpcUrl: node.url, tokens: [node.usdc], commitment }), {
        logger: pino({ level: 'silent' }),
        fetch,
        reservations: new Reservations(redis, p),
      });
    atFinalized = make('finalized', prefix);
    atConfirmed = make('confirmed', `${prefix}confirmed:`);
  });
  afterAll(async () => {
    redis.disconnect();
    await node.stop();
  });

  /** A funded vault with its nonce account, and a signed 0.1 SOL withdrawal from it, not sent yet. */
  async function signedWithdrawal(reference: string) {
    const vault = ed25519Signer();
    const source = vaultOf(atFinalized, vault, reference);
    await setUpNonce(atFinalized, vault, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(source.changeAddress, 'SOL', 1_000_000_000n);
    const to = atFinalized.addressFromPublicKey(ed25519Signer().publicKey);
    const unsigned = await atFinalized.craft(source, { reference, recipientAddress: to, asset: atFinalized.nativeAsset, amount: 100_000_000n, fee: 'LOW' });
    return { unsigned, signed: signWith(atFinalized, vault, unsigned), vault: source.changeAddress as Address, to: to as Address };
  }

  it('processed: pending for both; confirmed: confirmed at `confirmed` only; finalized: confirmed at both', async () => {
    const { unsigned, signed } = await signedWithdrawal('progress');
    await atFinalized.broadcast(signed);
    const slot = Number(node.svm.getClock().slot);
    const both = async () => [await atConfirmed.txStatus(signed.txid, unsigned), await atFinalized.txStatus(signed.txid, unsigned)];
    expect(await both()).toEqual([
      { state: 'pending', confirmations: 0, blockHeight: slot },
      { state: 'pending', confirmations: 0, blockHeight: slot },
    ]);
    node.facade.advance(1);
    expect(await both()).toEqual([
      { state: 'confirmed', confirmations: 1, blockHeight: slot },
      { state: 'pending', confirmations: 0, blockHeight: slot },
    ]);
    node.facade.advance(1);
    expect(await both()).toEqual([
      { state: 'confirmed', confirmations: 1, blockHeight: slot },
      { state: 'confirmed', confirmations: 1, blockHeight: slot },
    ]);
  });

  it('landed with an error (its fee paid, nothing moved): failed with the node’s error, final only at the commitment', async () => {
    const { unsigned, signed, vault, to } = await signedWithdrawal('fails');
    // Between signing and landing the vault is left 0.05 SOL (another transaction spent the
    // rest): the System transfer of 0.1 SOL fails after the fee is charged. Sent without
    // preflight, it lands with its error, as a leader runs it.
    const held = 50_000_000n;
    const account = node.svm.getAccount(vault);
    if (!account.exists) throw new Error('the vault has no account');
    node.svm.setAccount({ ...account, lamports: held as never });
    const wire = Buffer.from(signed.serialized, 'hex').toString('base64');
    const sent = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64', skipPreflight: true }] }),
    });
    expect(((await sent.json()) as { result?: string }).result).toBe(signed.txid);
    const slot = Number(node.svm.getClock().slot);
    // Instruction 0 advances the nonce; the transfer is instruction 2 (after the compute-unit price), the System program's custom error 1.
    const reason = JSON.stringify({ InstructionError: [2, { Custom: 1 }] });
    // Processed, then confirmed: its fork may still be dropped, so not final yet.
    expect(await atFinalized.txStatus(signed.txid, unsigned)).toEqual({ state: 'failed', confirmations: 0, blockHeight: slot, reason });
    node.facade.advance(1);
    expect(await atFinalized.txStatus(signed.txid, unsigned)).toEqual({ state: 'failed', confirmations: 0, blockHeight: slot, reason });
    node.facade.advance(1);
    expect(await atFinalized.txStatus(signed.txid, unsigned)).toEqual({ state: 'failed', confirmations: 1, blockHeight: slot, reason });
    expect(node.svm.getBalance(to) ?? 0n).toBe(0n);
    expect(node.svm.getBalance(vault)).toBe(held - unsigned.fee);
  });
});
