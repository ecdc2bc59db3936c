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
        expect(err.invalidForever).toBe(row.invalidForever);
        expect(err.details).toBe(`ethtest node refused nonce 4: ${ex.message}`);
      });
    }
  }

  // Written out apart from the table: which answers prove the bytes can never be valid. Every row
  // must be listed here by one of its texts, so a new row cannot come in without this choice.
  const ETH_FOREVER: [string, boolean][] = [
    ['already known', false],
    ['replacement transaction underpriced', false],
    ['nonce too low: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, tx: 0 state: 1', false],
    ['nonce too high', false],
    ['max fee per gas less than block base fee: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, maxFeePerGas: 1, baseFee: 7', false],
    ['transaction underpriced: tip needed 1, tip permitted 0', false],
    ['insufficient funds for gas * price + value: balance 0, tx cost 1000000000000000, overshot 1000000000000000', false],
    ['intrinsic gas too low: gas 20000, minimum needed 21000', true],
    ['exceeds block gas limit', false],
    ['invalid chain id for signer', true],
    ['invalid sender: transaction type not supported', false],
    ['invalid sender: invalid transaction v, r, s values', true],
    [
      'max priority fee per gas higher than max fee per gas: address 0x70997970C51812dc3A010C7d01b50e0d17dc79C8, maxPriorityFeePerGas: 2, maxFeePerGas: 1',
      true,
    ],
    ['txpool is full', false],
  ];
  it.each(ETH_FOREVER)('"%s" proves the bytes invalid forever: %s', (message, forever) => {
    expect(ethRejection(message, -32000, 'x', 'node.example:8545')).toMatchObject({ invalidForever: forever, fields: { node: 'node.example:8545' } });
  });
  it('every row of the table is among those choices', () => {
    const rows = new Set(ETH_FOREVER.map(([m]) => classifyEthMessage(m)));
    expect(ETH_NODE_MESSAGES.filter((row) => !rows.has(row))).toEqual([]);
  });
  it('geth names a wrong chain id under "invalid sender": it is the chain row, not the signature row', () => {
    expect(classifyEthMessage('invalid sender: invalid chain id for signer')?.kind).toBe('wrong_chain');
  });

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

  it('an unknown text is a permanent rejection that keeps the node words, and proves nothing of the bytes', () => {
    const err = ethRejection('the moon is in the wrong phase', -32000, 'ethtest node refused nonce 1');
    expect(err).toMatchObject({ kind: 'invalid', retryable: false, invalidForever: false, errCode: 'ERR_NODE_REJECTED', status: 422 });
    expect(err.details).toContain('the moon is in the wrong phase');
  });
});

describe('Bitcoin back-end reasons, from the table of clients', () => {
  for (const row of BITCOIN_NODE_REASONS) {
    for (const ex of row.examples) {
      it(`${ex.client}: "${ex.message.slice(0, 70)}" → ${row.kind}`, () => {
        expect(classifyBitcoinReason(ex.message)?.kind).toBe(row.kind);
        const err = bitcoinRejection(ex.message, ex.code, 'btc node refused ab12');
        expect(err).toMatchObject({ kind: row.kind, retryable: row.retryable, invalidForever: row.invalidForever });
      });
    }
  }

  // Written out apart from the table, as for Ethereum: every row listed by one of its texts.
  const BITCOIN_FOREVER: [string, boolean][] = [
    ['txn-already-in-mempool', false],
    ['bad-txns-inputs-missingorspent', false],
    ['txn-mempool-conflict', false],
    ['insufficient fee, rejecting replacement 0f3c…; new feerate 0.00001000 BTC/kvB <= old feerate 0.00002000 BTC/kvB', false],
    ['mempool min fee not met, 1000 < 2000', false],
    ['min relay fee not met, 144 < 282', false],
    ['dust', false],
    ['too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]', false],
    ['non-BIP68-final', false],
    ['mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)', true],
    ['bad-txns-inputs-duplicate', true],
    ['non-mandatory-script-verify-flag (Signature must be zero for failed CHECK(MULTI)SIG operation)', false],
  ];
  it.each(BITCOIN_FOREVER)('"%s" proves the bytes invalid forever: %s', (message, forever) => {
    expect(bitcoinRejection(message, -26, 'x', 'esplora.example')).toMatchObject({ invalidForever: forever, fields: { node: 'esplora.example' } });
  });
  it('every row of the table is among those choices', () => {
    const rows = new Set(BITCOIN_FOREVER.map(([m]) => classifyBitcoinReason(m)));
    expect(BITCOIN_NODE_REASONS.filter((row) => !rows.has(row))).toEqual([]);
  });
  it('what time or another node changes is not forever: an immature coinbase, a lock time, the policy sigop limit', () => {
    for (const reason of ['bad-txns-premature-spend-of-coinbase', 'bad-txns-nonfinal', 'bad-txns-too-many-sigops', 'bad-txns-nonstandard-inputs']) {
      expect(bitcoinRejection(reason, -26, 'x').invalidForever).toBe(false);
    }
  });

  it("reads Esplora's relayed Core text the same as Core's", () => {
    // Esplora answers `sendrawtransaction RPC error: {…}`; its back end parses out the message.
    expect(classifyBitcoinReason('min relay fee not met, 110 < 141')?.kind).toBe('min_relay_fee');
    expect(classifyBitcoinReason('mempool min fee not met, 110 < 141')).toMatchObject({ kind: 'fee_too_low', retryable: true });
  });

  it('an unknown reason is permanent, and proves nothing of the bytes', () => {
    expect(bitcoinRejection('the moon is in the wrong phase', -26, 'x')).toMatchObject({ kind: 'invalid', retryable: false, invalidForever: false });
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
