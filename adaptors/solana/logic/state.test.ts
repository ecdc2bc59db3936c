import { describe, expect, it } from 'vitest';
import { StoredStateError } from '../../../src/ledger/state-codec.js';
import { solanaState } from './state.js';

describe('solana withdrawal state', () => {
  it('the stored state is checked when read back', () => {
    expect(() => solanaState.decode({ kind: 'transfer' })).toThrow(StoredStateError);
    expect(() => solanaState.decode({ kind: 'transfer' })).toThrow(/vault: /);
    expect(() => solanaState.decode(null)).toThrow(/not a Solana withdrawal state/);
  });
});
