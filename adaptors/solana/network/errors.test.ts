import { describe, expect, it } from 'vitest';
import { PermanentLedgerError, UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import { AlreadyProcessedError, ExpiredTransactionError, mapNodeError } from './errors.js';

describe('solana node errors', () => {
  it('node errors become typed errors once', () => {
    expect(
      mapNodeError('sendTransaction', { code: -32002, message: 'Transaction simulation failed: This transaction has already been processed' }),
    ).toBeInstanceOf(AlreadyProcessedError);
    expect(mapNodeError('sendTransaction', { code: -32002, message: 'Transaction simulation failed: Blockhash not found' })).toBeInstanceOf(
      ExpiredTransactionError,
    );
    const rejected = mapNodeError('sendTransaction', { code: -32002, message: 'Transaction simulation failed: InsufficientFundsForRent' });
    expect(rejected).toBeInstanceOf(PermanentLedgerError);
    expect(rejected.retryable).toBe(false);
    expect(mapNodeError('getSlot', { code: -32005, message: 'Node is behind by 42 slots' })).toBeInstanceOf(UnavailableError);
    expect(mapNodeError('getSlot', { code: 429, message: 'Too many requests for a specific RPC call' }).retryable).toBe(true);
    expect(mapNodeError('getFoo', { code: -32601, message: 'Method not found' })).toBeInstanceOf(UpstreamError);
  });
});
