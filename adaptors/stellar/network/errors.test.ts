import { describe, expect, it } from 'vitest';
import { provesNeverLands } from '../../../src/platform/errors.js';
import { HORIZON_RESULT_CODES, horizonRejection, nodeHost } from './errors.js';

/** What each Horizon result code proves about the signed envelope: only its own faults make it invalid forever. */
const FOREVER: Record<string, boolean> = {
  tx_insufficient_fee: false,
  tx_too_early: false,
  tx_internal_error: false,
  // The number may be ahead, or taken by this withdrawal's own transaction: the status check reads which.
  tx_bad_seq: false,
  // Funds can arrive.
  tx_insufficient_balance: false,
  op_underfunded: false,
  op_low_reserve: false,
  // Signers and thresholds of the account as that node has them: they can change back.
  tx_bad_auth: false,
  tx_bad_auth_extra: false,
  tx_malformed: true,
  tx_missing_operation: true,
  op_malformed: true,
  tx_not_supported: false,
  // Proven by a closed ledger past the bound, in the status check, not by a node's estimate.
  tx_too_late: false,
  // Accounts and trustlines come and go: the recipient may create its account or trustline.
  tx_no_source_account: false,
  op_no_destination: false,
  op_no_trust: false,
  op_already_exists: false,
};

describe('Horizon result codes: what a refusal proves', () => {
  it('every row is listed here with its value, and nothing else', () => {
    expect(Object.fromEntries(HORIZON_RESULT_CODES.map((r) => [r.code, r.invalidForever]))).toEqual(FOREVER);
  });

  for (const row of HORIZON_RESULT_CODES) {
    it(`${row.code}: ${row.invalidForever ? 'invalid forever' : 'proves nothing about the signed envelope'}`, () => {
      const codes = row.code.startsWith('op_') ? { transaction: 'tx_failed', operations: [row.code] } : { transaction: row.code };
      const err = horizonRejection(codes, undefined, 'horizon.stellar.org');
      expect(err).toMatchObject({ kind: row.kind, retryable: row.retryable, invalidForever: row.invalidForever && !row.retryable });
      expect(provesNeverLands(err)).toBe(FOREVER[row.code]);
      expect(err.fields).toMatchObject({ node: 'horizon.stellar.org', resultCodes: codes });
    });
  }

  it('an unknown code, or a refinement of the broadcast, proves nothing', () => {
    expect(provesNeverLands(horizonRejection({ transaction: 'tx_fee_bump_inner_failed' }))).toBe(false);
    expect(provesNeverLands(horizonRejection({ transaction: 'tx_bad_seq' }, { kind: 'nonce_too_high', retryable: true }))).toBe(false);
  });

  it('names the node by its host only: a key in the path or query never reaches the refusal', () => {
    expect(nodeHost('https://user:secret@horizon.example.com:8000/key/abc?apikey=1')).toBe('horizon.example.com:8000');
    expect(nodeHost('not a url')).toBeUndefined();
  });
});
