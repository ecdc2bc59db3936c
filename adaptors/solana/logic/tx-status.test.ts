import { describe, expect, it } from 'vitest';
import type { UnsignedWithdrawal } from '../../../src/ledger/adaptor.js';
import { txStatus } from './tx-status.js';

/** A transaction that failed on chain is final at the commitment a success is, and no sooner. */
describe('solana txStatus of a transaction that failed on chain', () => {
  const ctx = (confirmationStatus: 'processed' | 'confirmed' | 'finalized') =>
    ({
      options: { commitment: 'finalized', confirmations: 1 },
      rpc: { getSignatureStatus: async () => ({ slot: 42, err: { InstructionError: [1, { Custom: 1 }] }, confirmationStatus }) },
    }) as never;
  const unsigned = {} as UnsignedWithdrawal;

  it('carries the confirmations of its commitment once reached, so the withdrawal ends FAILED', async () => {
    expect(await txStatus(ctx('finalized'), 'sig', unsigned)).toEqual({
      state: 'failed',
      confirmations: 1,
      blockHeight: 42,
      reason: '{"InstructionError":[1,{"Custom":1}]}',
    });
  });

  it('has none below it: the fork it failed on may still be dropped', async () => {
    for (const level of ['processed', 'confirmed'] as const)
      expect(await txStatus(ctx(level), 'sig', unsigned)).toMatchObject({ state: 'failed', confirmations: 0, blockHeight: 42 });
  });
});
