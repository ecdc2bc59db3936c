import { TransactionBuilder, type Transaction } from '@stellar/stellar-sdk';
import { afterEach, describe, expect, it } from 'vitest';
import { NodeRejectionError, provesNeverLands } from '../../src/platform/errors.js';
import { testRedis } from '../../test/helpers/redis.js';
import type { LocalStellarLedger } from './local-node/index.js';
import { stellarState } from './logic/state.js';
import { signedOnSimulator, signPayloads, vaultOf } from './test-kit.js';

/**
 * The Stellar cancel on the simulator: a transaction from the vault at the original's own
 * sequence number N holding one bump_sequence to N. Of the two, whichever applies first makes
 * the other impossible for good, and the other's status names it with its ledger's proof.
 */
describe('Stellar cancel: bump_sequence at the original’s own number', () => {
  const { redis, prefix } = testRedis();
  let ledger: LocalStellarLedger | undefined;
  let refs = 0;

  afterEach(async () => {
    await ledger?.stop();
    ledger = undefined;
  });

  async function withCancel() {
    const made = await signedOnSimulator(redis, prefix, 300, `cancel-${process.pid}-${++refs}`);
    ledger = made.sim;
    const a = made.adaptor();
    const cancel = await a.replace!({ kind: 'cancel', unsigned: made.unsigned, signed: [made.signed], source: vaultOf(made.vault) });
    const [cancelled] = a.combine(cancel, signPayloads(cancel, made.vault));
    const sequence = BigInt(stellarState.decode(made.unsigned.state).sequence);
    return { ...made, a, cancel, cancelled: cancelled!, sequence };
  }

  it('is one bump_sequence to N at sequence N, paying nobody, with its own time bounds', async () => {
    const { sim, cancel, cancelled, sequence } = await withCancel();
    const tx = TransactionBuilder.fromXDR(Buffer.from(cancelled.serialized, 'hex').toString('base64'), sim.passphrase) as Transaction;
    expect(BigInt(tx.sequence)).toBe(sequence);
    expect(tx.operations).toEqual([expect.objectContaining({ type: 'bumpSequence', bumpTo: sequence.toString() })]);
    expect(cancel.expiresAt).toBe(Number(tx.timeBounds!.maxTime) * 1000);
  });

  it('the cancel applies first: the original can never apply (its refusal alone proves nothing; its status names the cancel), the recipient is unpaid, and the next number is still good', async () => {
    const { sim, vault, dest, a, unsigned, signed, cancelled, sequence, adaptor } = await withCancel();
    const paid = sim.account(dest.address)!.balance;
    expect(await a.broadcast(cancelled)).toEqual({ txid: cancelled.txid, alreadyKnown: false });
    expect(sim.account(vault.address)!.sequence).toBe(sequence);
    const refused = await a.broadcast(signed).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(NodeRejectionError);
    expect(refused).toMatchObject({ kind: 'nonce_taken', invalidForever: false });
    expect(provesNeverLands(refused)).toBe(false);
    expect(await a.txStatus(signed.txid, unsigned)).toEqual({
      state: 'failed',
      confirmations: 0,
      reason: `replaced: sequence ${sequence} used by transaction ${cancelled.txid}`,
      spentBy: cancelled.txid,
      proofConfirmations: 1,
    });
    expect(sim.account(dest.address)!.balance).toBe(paid);
    // The vault's next withdrawal (N + 1) applies: the bump went to N, not past it.
    const next = await adaptor().craft(vaultOf(vault), {
      reference: `next-${refs}`,
      recipientAddress: dest.address,
      asset: a.assets()[0]!,
      amount: 10_000_000n,
      fee: 'LOW',
    });
    expect(BigInt(stellarState.decode(next.state).sequence)).toBe(sequence + 1n);
    const [nextSigned] = a.combine(next, signPayloads(next, vault));
    await a.broadcast(nextSigned!);
    expect(sim.account(dest.address)!.balance).toBe(paid + 10_000_000n);
  });

  it('the original applies first: the cancel can never apply, its status names the original', async () => {
    const { sim, dest, a, signed, cancel, cancelled, sequence } = await withCancel();
    const paid = sim.account(dest.address)!.balance;
    await a.broadcast(signed);
    expect(await a.broadcast(cancelled).catch((e: unknown) => e)).toBeInstanceOf(NodeRejectionError);
    expect(await a.txStatus(cancelled.txid, cancel)).toMatchObject({
      state: 'failed',
      spentBy: signed.txid,
      reason: `replaced: sequence ${sequence} used by transaction ${signed.txid}`,
    });
    expect(sim.account(dest.address)!.balance).toBe(paid + 50_000_000n);
  });
});
