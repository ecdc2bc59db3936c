import { getTransactionEncoder, lamports, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalSolanaNode, type LocalSolanaNode } from './index.js';
import { newLocalKey, signedTransaction } from './keys.js';

/**
 * getSignatureStatuses through the facade, as an Agave node answers it: a landed transaction is
 * `processed` in its slot, `confirmed` a slot later, `finalized` `finalityDepth` slots later;
 * one that failed after paying its fee carries the runtime's error.
 */
describe('local Solana node: commitment of a landed transaction', () => {
  let node: LocalSolanaNode | undefined;
  afterEach(async () => {
    await node?.stop();
    node = undefined;
  });

  const call = async (n: LocalSolanaNode, method: string, params: unknown[]) => {
    const res = await fetch(n.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as { result?: { context: { slot: number }; value: unknown[] }; error?: { code: number; message: string } };
  };
  const statusOf = async (n: LocalSolanaNode, sig: string, config?: unknown) => {
    const r = await call(n, 'getSignatureStatuses', config === undefined ? [[sig]] : [[sig], config]);
    if (r.error) throw new Error(r.error.message);
    return r.result!.value[0] as Record<string, unknown> | null;
  };
  /** Sends a transfer of `amount` from a payer holding `balance`; skipPreflight lets a failing one land. */
  const send = async (n: LocalSolanaNode, balance: bigint, amount: bigint, skipPreflight = false) => {
    const payer = newLocalKey();
    n.svm.airdrop(payer.address, lamports(balance));
    const tx = signedTransaction([payer], n.svm.latestBlockhash(), [
      getTransferSolInstruction({ source: payer.signer, destination: newLocalKey().address as Address, amount }),
    ]);
    const wire = Buffer.from(getTransactionEncoder().encode(tx)).toString('base64');
    const r = await call(n, 'sendTransaction', [wire, { encoding: 'base64', skipPreflight }]);
    if (r.error) throw new Error(r.error.message);
    return { sig: r.result as unknown as string, payer: payer.address };
  };

  it('processed in its slot, confirmed a slot later, finalized finalityDepth slots later (confirmations null then)', async () => {
    const n = (node = await startLocalSolanaNode({ slotMs: 0, finalityDepth: 3 }));
    const { sig } = await send(n, 1_000_000_000n, 10_000_000n);
    const slot = Number(n.svm.getClock().slot);
    const seen: unknown[] = [];
    for (let i = 0; i < 4; i++) {
      seen.push(await statusOf(n, sig));
      n.facade.advance(1);
    }
    const at = (confirmationStatus: string, confirmations: number | null) => ({ slot, confirmations, status: { Ok: null }, err: null, confirmationStatus });
    expect(seen).toEqual([at('processed', 0), at('confirmed', 1), at('confirmed', 2), at('finalized', null)]);
  });

  it('a transaction that fails after paying its fee lands with the runtime error, and is finalized like any other', async () => {
    const n = (node = await startLocalSolanaNode({ slotMs: 0 }));
    // 0.01 SOL held, 0.5 SOL sent: the System program's insufficient-lamports error (custom 1), the fee still charged.
    const { sig, payer } = await send(n, 10_000_000n, 500_000_000n, true);
    const err = { InstructionError: [0, { Custom: 1 }] };
    expect(await statusOf(n, sig)).toEqual({
      slot: Number(n.svm.getClock().slot),
      confirmations: 0,
      status: { Err: err },
      err,
      confirmationStatus: 'processed',
    });
    expect(n.svm.getBalance(payer as Address)).toBe(10_000_000n - 5_000n);
    n.facade.advance(2);
    expect(await statusOf(n, sig)).toMatchObject({ err, confirmationStatus: 'finalized', confirmations: null });
  });

  it('left the status cache (300 rooted slots on), found only with searchTransactionHistory', async () => {
    const n = (node = await startLocalSolanaNode({ slotMs: 0 }));
    const { sig } = await send(n, 1_000_000_000n, 10_000_000n);
    n.facade.advance(2 + 299);
    expect(await statusOf(n, sig)).toMatchObject({ confirmationStatus: 'finalized' });
    n.facade.advance(1);
    expect(await statusOf(n, sig)).toBeNull();
    expect(await statusOf(n, sig, { searchTransactionHistory: false })).toBeNull();
    expect(await statusOf(n, sig, { searchTransactionHistory: true })).toMatchObject({ confirmationStatus: 'finalized', confirmations: null, err: null });
  });

  it('refuses what Agave refuses, and a config key it does not know', async () => {
    const n = (node = await startLocalSolanaNode({ slotMs: 0 }));
    const sig = '1'.repeat(64);
    expect((await call(n, 'getSignatureStatuses', [Array(257).fill(sig)])).error).toEqual({ code: -32602, message: 'Too many inputs provided; max 256' });
    expect((await call(n, 'getSignatureStatuses', [['not-a-signature']])).error?.code).toBe(-32602);
    expect((await call(n, 'getSignatureStatuses', [[sig], { searchTransactionHistory: 'yes' }])).error?.code).toBe(-32602);
    expect((await call(n, 'getSignatureStatuses', [[sig], { commitment: 'finalized' }])).error?.message).toMatch(/unknown field `commitment`/);
    expect((await call(n, 'getSignatureStatuses', [[sig], { searchTransactionHistory: true }])).result?.value).toEqual([null]);
  });

  it('on its own, the node roots what it landed and then stays where it is', async () => {
    const n = (node = await startLocalSolanaNode({ slotMs: 20 }));
    const { sig } = await send(n, 1_000_000_000n, 10_000_000n);
    const deadline = Date.now() + 10_000;
    while ((await statusOf(n, sig))?.confirmationStatus !== 'finalized' && Date.now() < deadline) await new Promise((r) => setImmediate(r));
    expect(await statusOf(n, sig)).toMatchObject({ confirmationStatus: 'finalized' });
    // Nothing in flight: the clock produces no more blocks (an idle node does not grow its ledger).
    expect(n.facade.unrooted()).toBe(false);
  });
});
