import { NodeRejectionError, type RejectionKind } from '../../../src/platform/errors.js';

/**
 * Bitcoin back ends' reasons for refusing a transaction, read in this one place. Bitcoin Core
 * answers `sendrawtransaction` with its validation reject reason (src/validation.cpp,
 * src/policy/policy.cpp, src/policy/rbf.cpp; RPC codes -25 verify error, -26 rejected,
 * -27 already in chain); Esplora relays Core's text inside `sendrawtransaction RPC error: {…}`;
 * bcoin (lib/mempool/mempool.js, lib/primitives/tx.js) uses Core's reasons with a few of its
 * own. Rows are tried in order; `examples` name the client whose text each is.
 */
export interface BitcoinReasonRow {
  kind: RejectionKind;
  /** Whether the same signed bytes can be accepted later. */
  retryable: boolean;
  /**
   * Whether the answer proves the transaction's own bytes can never be valid, on any node at any
   * time: its structure, or its scripts failing the consensus rules against the coins it names
   * (an outpoint always names the same coin). Only such a refusal ends a signed withdrawal
   * FAILED; every other one leaves it open, since the same bytes may still land (sent again, or
   * by anyone who holds them). Each row says why.
   */
  invalidForever: boolean;
  pattern: RegExp;
  examples: { client: string; message: string; code?: number }[];
}

export const BITCOIN_NODE_REASONS: readonly BitcoinReasonRow[] = [
  {
    // Not a refusal: the node holds these very bytes.
    kind: 'already_known',
    retryable: false,
    invalidForever: false,
    pattern: /txn-already-in-mempool|txn-already-known|already in (?:the )?block ?chain|outputs already in utxo set|already in mempool|^already known/i,
    examples: [
      { client: 'bitcoin core', message: 'txn-already-in-mempool', code: -26 },
      { client: 'bitcoin core', message: 'txn-already-known', code: -26 },
      { client: 'bitcoin core (older)', message: 'Transaction already in block chain', code: -27 },
      { client: 'bitcoin core', message: 'Transaction outputs already in utxo set', code: -27 },
      { client: 'bcoin', message: 'txn-already-in-mempool' },
      { client: 'bcoin', message: 'txn-already-known' },
    ],
  },
  {
    // Not forever: this node does not see the coins (a parent not relayed to it yet, a lagging
    // back end), or they are spent by a block that may leave the chain; tx-status proves a spend at depth.
    kind: 'missing_inputs',
    retryable: false,
    invalidForever: false,
    pattern: /bad-txns-inputs-missingorspent|missing inputs|missing-inputs/i,
    examples: [
      { client: 'bitcoin core', message: 'bad-txns-inputs-missingorspent', code: -25 },
      { client: 'bitcoin core (older)', message: 'Missing inputs', code: -25 },
      { client: 'bcoin', message: 'bad-txns-inputs-missingorspent' },
    ],
  },
  {
    // Another mempool transaction spends the same coins and may not be replaced. Not forever: it is
    // in a mempool only, and may be dropped or never mined.
    kind: 'inputs_conflict',
    retryable: false,
    invalidForever: false,
    pattern: /txn-mempool-conflict|bad-txns-inputs-spent/i,
    examples: [
      { client: 'bitcoin core', message: 'txn-mempool-conflict', code: -26 },
      { client: 'bcoin', message: 'bad-txns-inputs-spent' },
    ],
  },
  {
    // BIP125 replacement refused: too little fee over the original, new unconfirmed inputs, too many
    // evictions. Not forever: the rules compare with what this node's mempool holds, which changes.
    kind: 'rbf_rule',
    retryable: false,
    invalidForever: false,
    pattern: /^insufficient fee|replacement-adds-unconfirmed|too many potential replacements|replace-by-fee|rejecting replacement/i,
    examples: [
      {
        client: 'bitcoin core',
        message:
          'insufficient fee, rejecting replacement 0f3c8e2b9a8d7c6b5a4f3e2d1c0b9a8f7e6d5c4b3a2f1e0d9c8b7a6f5e4d3c2b; new feerate 0.00001000 BTC/kvB <= old feerate 0.00002000 BTC/kvB',
        code: -26,
      },
      { client: 'bitcoin core', message: 'replacement-adds-unconfirmed, replacement 0f3c… adds unconfirmed input, idx 0', code: -26 },
      {
        client: 'bitcoin core',
        message: 'too many potential replacements, rejecting replacement 0f3c…; too many potential replacements (101 > 100)',
        code: -26,
      },
      { client: 'bcoin', message: 'replace-by-fee' },
    ],
  },
  {
    // The mempool's floor rises when it fills and falls again: worth retrying.
    kind: 'fee_too_low',
    retryable: true,
    invalidForever: false,
    pattern: /mempool min fee not met/i,
    examples: [{ client: 'bitcoin core', message: 'mempool min fee not met, 1000 < 2000', code: -26 }],
  },
  {
    // Under the node's fixed relay floor: sending the same bytes there again will not help. Not
    // forever: the floor is each node's setting (-minrelaytxfee); a node with a lower one, or a
    // miner, takes the same bytes.
    kind: 'min_relay_fee',
    retryable: false,
    invalidForever: false,
    pattern: /min relay fee not met|insufficient priority|rate limited free transaction/i,
    examples: [
      { client: 'bitcoin core', message: 'min relay fee not met, 100 < 141', code: -26 },
      { client: 'bitcoin core', message: 'min relay fee not met, 144 < 282', code: -26 },
      { client: 'bcoin', message: 'insufficient priority' },
      { client: 'bcoin', message: 'rate limited free transaction' },
    ],
  },
  {
    // Not forever: the dust limit is relay policy, set per node (-dustrelayfee); miners may take it.
    kind: 'dust',
    retryable: false,
    invalidForever: false,
    pattern: /^dust$|^dust\b/i,
    examples: [
      { client: 'bitcoin core', message: 'dust', code: -26 },
      { client: 'bcoin', message: 'dust' },
    ],
  },
  {
    // Full mempool, or too long a chain of unconfirmed ancestors: clears as blocks come.
    kind: 'pool_full',
    retryable: true,
    invalidForever: false,
    pattern: /mempool full|too-long-mempool-chain|too long mempool chain/i,
    examples: [
      { client: 'bitcoin core', message: 'mempool full', code: -26 },
      { client: 'bitcoin core', message: 'too-long-mempool-chain, too many unconfirmed ancestors [limit: 25]', code: -26 },
      { client: 'bcoin', message: 'too-long-mempool-chain' },
    ],
  },
  {
    // A lock time or relative lock not reached yet: it will be.
    kind: 'not_final',
    retryable: true,
    invalidForever: false,
    pattern: /non-final|non-bip68-final/i,
    examples: [
      { client: 'bitcoin core', message: 'non-final', code: -26 },
      { client: 'bitcoin core', message: 'non-BIP68-final', code: -26 },
      { client: 'bcoin', message: 'non-final' },
    ],
  },
  {
    // Forever: an input's script fails the consensus rules (a bad signature, a wrong key), checked
    // against the coin its outpoint names, which is always the same coin; rules added by soft forks
    // only ever reject more. Before the policy row, whose "script-verify-flag" this contains.
    kind: 'invalid',
    retryable: false,
    invalidForever: true,
    pattern: /(?<!non-)mandatory-script-verify-flag|block-script-verify-flag-failed/i,
    examples: [
      {
        client: 'bitcoin core',
        message: 'mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)',
        code: -26,
      },
      { client: 'bitcoin core 30', message: 'block-script-verify-flag-failed (Invalid Schnorr signature)', code: -26 },
      { client: 'bcoin', message: 'mandatory-script-verify-flag' },
    ],
  },
  {
    // Forever: the transaction's structure (no inputs or outputs, an input twice, amounts out of
    // range, too large), or outputs worth more than the coins it names (whose values never change).
    // Not here, since time or another node changes them: an immature coinbase
    // (bad-txns-premature-spend-of-coinbase), a lock time (bad-txns-nonfinal), the policy's sigop
    // limit (bad-txns-too-many-sigops), missing or spent inputs.
    kind: 'invalid',
    retryable: false,
    invalidForever: true,
    pattern:
      /bad-txns-(?:vin-empty|vout-empty|oversize|vout-negative|vout-toolarge|txouttotal-toolarge|inputs-duplicate|prevout-null|in-belowout|inputvalues-outofrange|fee-negative|fee-outofrange)|bad-cb-length/i,
    examples: [
      { client: 'bitcoin core', message: 'bad-txns-vin-empty', code: -26 },
      { client: 'bitcoin core', message: 'bad-txns-inputs-duplicate', code: -26 },
      { client: 'bitcoin core', message: 'bad-txns-in-belowout, value in (0.0001) < value out (0.0002)', code: -26 },
      { client: 'bitcoin core', message: 'bad-txns-txouttotal-toolarge', code: -26 },
      { client: 'bcoin', message: 'bad-txns-vout-empty' },
      { client: 'bcoin', message: 'bad-txns-in-belowout' },
      { client: 'bcoin', message: 'bad-txns-fee-negative' },
    ],
  },
  {
    // Not forever: standardness is relay policy (Core's and bcoin's -acceptnonstdtxn, policy
    // script flags): a node or miner with another policy takes the same bytes.
    kind: 'non_standard',
    retryable: false,
    invalidForever: false,
    pattern:
      /scriptpubkey|tx-size|^version$|bare-multisig|multi-op-return|script-verify-flag|bad-txns-nonstandard-inputs|bad-witness-nonstandard|scriptsig-size|scriptsig-not-pushonly|too-many-sigops/i,
    examples: [
      { client: 'bitcoin core', message: 'scriptpubkey', code: -26 },
      { client: 'bitcoin core', message: 'tx-size-small', code: -26 },
      { client: 'bitcoin core', message: 'non-mandatory-script-verify-flag (Signature must be zero for failed CHECK(MULTI)SIG operation)', code: -26 },
      { client: 'bitcoin core 30', message: 'mempool-script-verify-flag-failed (Using non-compressed keys in segwit)', code: -26 },
      { client: 'bcoin', message: 'non-mandatory-script-verify-flag' },
      { client: 'bcoin', message: 'bad-txns-nonstandard-inputs' },
      { client: 'bcoin', message: 'bad-witness-nonstandard' },
      { client: 'bcoin', message: 'multi-op-return' },
    ],
  },
];

export function classifyBitcoinReason(reason: string): BitcoinReasonRow | undefined {
  return BITCOIN_NODE_REASONS.find((row) => row.pattern.test(reason));
}

/**
 * A back end's refusal as a typed error, naming the back end that answered (its host) where
 * known. An unknown reason is a permanent `invalid` rejection that proves nothing of the bytes:
 * not `invalidForever`.
 */
export function bitcoinRejection(reason: string, code: number | undefined, context: string, node?: string): NodeRejectionError {
  const row = classifyBitcoinReason(reason);
  return new NodeRejectionError(
    row?.kind ?? 'invalid',
    `${context}: ${reason}`,
    row?.retryable ?? false,
    { ...(code === undefined ? {} : { nodeCode: code }), ...(node ? { node } : {}) },
    { invalidForever: row?.invalidForever ?? false },
  );
}
