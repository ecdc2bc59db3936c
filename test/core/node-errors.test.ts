import { describe, expect, it } from 'vitest';
import { BITCOIN_NODE_REASONS, bitcoinRejection, classifyBitcoinReason } from '../../adaptors/bitcoin/network/errors.js';
import { classifyEthMessage, ETH_NODE_MESSAGES, ethRejection } from '../../adaptors/ethereum/network/errors.js';
import { HORIZON_RESULT_CODES, horizonRejection } from '../../adaptors/stellar/network/errors.js';
import { NodeRejectionError } from '../../src/platform/errors.js';

// Every client text in the tables must land on its own row: an earlier row that swallows it
// (e.g. "transaction underpriced" inside "replacement transaction underpriced") fails here.
describe('Ethereum node messages, from the table of clients', () => {
  for (const row of ETH_NODE_MESSAGES) {
    for (const ex of row.examples) {
      it(`${ex.client}: "${ex.message.slice(0, 70)}" → ${row.kind}`, () => {
        expect(classifyEthMessage(ex.message)?.kind).toBe(row.kind);
        const err = ethRejection(ex.message, ex.code ?? -32000, 'ethtest node refused nonce 4');
        expect(err).toBeInstanceOf(NodeRejectionError);
        expect(err.kind).toBe(row.kind);
        expect(err.retryable).toBe(row.retryable);
        expect(err.details).toBe(`ethtest node refused nonce 4: ${ex.message}`);
      });
    }
  }

  it('maps the kinds the pipeline branches on to their codes and retry rule', () => {
    const cases: [string, string, boolean][] = [
      ["Nonce too high. Expected nonce to be 4 but got 5. Note that transactions can't be queued when automining.", 'ERR_NONCE_TOO_HIGH', true],
      ["Sender doesn't have enough funds to send tx. The max upfront cost is: 1 and the sender's balance is: 0.", 'ERR_INSUFFICIENT_FUNDS', false],
      ['Transaction maxFeePerGas (1) is too low for the next block, which has a baseFeePerGas of 7', 'ERR_FEE_TOO_LOW', true],
      ['replacement transaction underpriced', 'ERR_REPLACEMENT_UNDERPRICED', false],
      ['invalid chain id for signer', 'ERR_WRONG_CHAIN', false],
    ];
    for (const [message, errCode, retryable] of cases) {
      expect(ethRejection(message, -32000, 'x')).toMatchObject({ errCode, retryable });
    }
  });

  it('an unknown text is a permanent rejection that keeps the node words', () => {
    const err = ethRejection('the moon is in the wrong phase', -32000, 'ethtest node refused nonce 1');
    expect(err).toMatchObject({ kind: 'invalid', retryable: false, errCode: 'ERR_NODE_REJECTED', status: 422 });
    expect(err.details).toContain('the moon is in the wrong phase');
  });
});

describe('Bitcoin back-end reasons, from the table of clients', () => {
  for (const row of BITCOIN_NODE_REASONS) {
    for (const ex of row.examples) {
      it(`${ex.client}: "${ex.message.slice(0, 70)}" → ${row.kind}`, () => {
        expect(classifyBitcoinReason(ex.message)?.kind).toBe(row.kind);
        const err = bitcoinRejection(ex.message, ex.code, 'btc node refused ab12');
        expect(err).toMatchObject({ kind: row.kind, retryable: row.retryable });
      });
    }
  }

  it("reads Esplora's relayed Core text the same as Core's", () => {
    // Esplora answers `sendrawtransaction RPC error: {…}`; its back end parses out the message.
    expect(classifyBitcoinReason('min relay fee not met, 110 < 141')?.kind).toBe('min_relay_fee');
    expect(classifyBitcoinReason('mempool min fee not met, 110 < 141')).toMatchObject({ kind: 'fee_too_low', retryable: true });
  });

  it('an unknown reason is permanent', () => {
    expect(bitcoinRejection('bad-txns-in-belowout', -26, 'x')).toMatchObject({ kind: 'invalid', retryable: false });
  });
});

describe('Horizon result codes', () => {
  for (const row of HORIZON_RESULT_CODES) {
    it(`${row.code} → ${row.kind}${row.retryable ? ' (retryable)' : ''}`, () => {
      const codes = row.code.startsWith('op_') ? { transaction: 'tx_failed', operations: [row.code] } : { transaction: row.code };
      const err = horizonRejection(codes);
      expect(err).toMatchObject({ kind: row.kind, retryable: row.retryable });
      expect(err.details.startsWith(row.code.startsWith('op_') ? `tx_failed [${row.code}]: ` : `${row.code}: `)).toBe(true);
    });
  }

  it('the failing operation decides over tx_failed, and an unknown code is permanent', () => {
    expect(horizonRejection({ transaction: 'tx_failed', operations: ['op_success', 'op_underfunded'] })).toMatchObject({
      kind: 'insufficient_funds',
      errCode: 'ERR_INSUFFICIENT_FUNDS',
    });
    expect(horizonRejection({ transaction: 'tx_fee_bump_inner_failed' })).toMatchObject({ kind: 'ledger_result', retryable: false });
  });
});
