import { describe, expect, it } from 'vitest';
import { NodeRejectionError, provesNeverLands, UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import {
  AlreadyProcessedError,
  BlockNotAvailableError,
  ExpiredTransactionError,
  mapNodeError,
  SlotSkippedError,
  SOLANA_SEND_REFUSALS,
  sendRefusalRow,
} from './errors.js';

describe('solana node errors', () => {
  it('node errors become typed errors once', () => {
    expect(
      mapNodeError('sendTransaction', { code: -32002, message: 'Transaction simulation failed: This transaction has already been processed' }),
    ).toBeInstanceOf(AlreadyProcessedError);
    expect(mapNodeError('sendTransaction', { code: -32002, message: 'Transaction simulation failed: Blockhash not found' })).toBeInstanceOf(
      ExpiredTransactionError,
    );
    expect(mapNodeError('getSlot', { code: -32005, message: 'Node is behind by 42 slots' })).toBeInstanceOf(UnavailableError);
    expect(mapNodeError('getSlot', { code: 429, message: 'Too many requests for a specific RPC call' }).retryable).toBe(true);
    expect(mapNodeError('getFoo', { code: -32601, message: 'Method not found' })).toBeInstanceOf(UpstreamError);
    // Bad parameters of a read are not a refusal of a transaction.
    expect(mapNodeError('getMultipleAccounts', { code: -32602, message: 'Invalid param: WrongSize' })).not.toBeInstanceOf(NodeRejectionError);
  });

  it("getBlock's answers for a slot without a block, in Agave's words: skipped (a block of no one), or not there yet (retried)", () => {
    for (const [code, message] of [
      [-32007, 'Slot 311350484 was skipped, or missing due to ledger jump to recent snapshot'],
      [-32009, 'Slot 311350484 was skipped, or missing in long-term storage'],
    ] as const)
      expect(mapNodeError('getBlock', { code, message })).toBeInstanceOf(SlotSkippedError);
    for (const [code, message] of [
      [-32004, 'Block not available for slot 311350484'],
      [-32014, 'Block status not yet available for slot 311350484'],
    ] as const) {
      const err = mapNodeError('getBlock', { code, message });
      expect(err).toBeInstanceOf(BlockNotAvailableError);
      expect(err).toBeInstanceOf(UnavailableError);
    }
  });

  describe('refusals of sendTransaction, row by row', () => {
    for (const row of SOLANA_SEND_REFUSALS) {
      for (const ex of row.examples) {
        it(`${row.code} "${ex.message.slice(0, 70)}" → ${row.kind}${row.invalidForever ? ', invalid forever' : ', proves nothing'}`, () => {
          const body = { code: row.code, message: ex.message, data: ex.data };
          expect(sendRefusalRow(body)).toBe(row);
          const err = mapNodeError('sendTransaction', body, 'api.mainnet-beta.solana.com');
          expect(err).toBeInstanceOf(NodeRejectionError);
          expect(err).toMatchObject({ kind: row.kind, retryable: false, invalidForever: row.invalidForever, fields: { node: 'api.mainnet-beta.solana.com' } });
          expect(provesNeverLands(err)).toBe(row.invalidForever);
          expect(err.details).toContain(ex.message);
        });
      }
    }

    it("a lagging node's preflight proves nothing: insufficient lamports, invalid account data, an account not found", () => {
      const lagging = [
        {
          code: -32002,
          message: 'Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1',
          data: { err: { InstructionError: [2, { Custom: 1 }] }, logs: ['Transfer: insufficient lamports 0, need 100000000'] },
        },
        {
          code: -32002,
          message: 'Transaction simulation failed: Error processing Instruction 2: invalid account data for instruction',
          data: { err: { InstructionError: [2, 'InvalidAccountData'] } },
        },
        {
          code: -32002,
          message: 'Transaction simulation failed: Attempt to debit an account but found no record of a prior credit.',
          data: { err: 'AccountNotFound' },
        },
      ];
      for (const body of lagging) expect(provesNeverLands(mapNodeError('sendTransaction', body))).toBe(false);
      expect(provesNeverLands(mapNodeError('sendTransaction', { code: -32003, message: 'Transaction signature verification failure' }))).toBe(true);
    });
  });
});
