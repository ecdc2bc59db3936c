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
  pattern: RegExp;
  examples: { client: string; message: string; code?: number }[];
}

export const BITCOIN_NODE_REASONS: readonly BitcoinReasonRow[] = [
  {
    kind: 'already_known',
    retryable: false,
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
    kind: 'missing_inputs',
    retryable: false,
    pattern: /bad-txns-inputs-missingorspent|missing inputs|missing-inputs/i,
    examples: [
      { client: 'bitcoin core', message: 'bad-txns-inputs-missingorspent', code: -25 },
      { client: 'bitcoin core (older)', message: 'Missing inputs', code: -25 },
      { client: 'bcoin', message: 'bad-txns-inputs-missingorspent' },
    ],
  },
  {
    // Another mempool transaction spends the same coins and may not be replaced.
    kind: 'inputs_conflict',
    retryable: false,
    pattern: /txn-mempool-conflict|bad-txns-inputs-spent/i,
    examples: [
      { client: 'bitcoin core', message: 'txn-mempool-conflict', code: -26 },
      { client: 'bcoin', message: 'bad-txns-inputs-spent' },
    ],
  },
  {
    // BIP125 replacement refused: too little fee over the original, new unconfirmed inputs, too many evictions.
    kind: 'rbf_rule',
    retryable: false,
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
    pattern: /mempool min fee not met/i,
    examples: [{ client: 'bitcoin core', message: 'mempool min fee not met, 1000 < 2000', code: -26 }],
  },
  {
    // Under the node's fixed relay floor: the signed fee will never be enough there.
    kind: 'min_relay_fee',
    retryable: false,
    pattern: /min relay fee not met|insufficient priority|rate limited free transaction/i,
    examples: [
      { client: 'bitcoin core', message: 'min relay fee not met, 100 < 141', code: -26 },
      { client: 'bcoin', message: 'insufficient priority' },
      { client: 'bcoin', message: 'rate limited free transaction' },
    ],
  },
  {
    kind: 'dust',
    retryable: false,
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
    pattern: /non-final|non-bip68-final/i,
    examples: [
      { client: 'bitcoin core', message: 'non-final', code: -26 },
      { client: 'bitcoin core', message: 'non-BIP68-final', code: -26 },
      { client: 'bcoin', message: 'non-final' },
    ],
  },
  {
    kind: 'non_standard',
    retryable: false,
    pattern:
      /scriptpubkey|tx-size|^version$|bare-multisig|multi-op-return|script-verify-flag|bad-txns-nonstandard-inputs|bad-witness-nonstandard|scriptsig-size|scriptsig-not-pushonly|too-many-sigops/i,
    examples: [
      { client: 'bitcoin core', message: 'scriptpubkey', code: -26 },
      { client: 'bitcoin core', message: 'tx-size-small', code: -26 },
      { client: 'bitcoin core', message: 'non-mandatory-script-verify-flag (Signature must be zero for failed CHECK(MULTI)SIG operation)', code: -26 },
      {
        client: 'bitcoin core',
        message: 'mandatory-script-verify-flag-failed (Script evaluated without error but finished with a false/empty top stack element)',
        code: -26,
      },
      { client: 'bcoin', message: 'bad-txns-nonstandard-inputs' },
      { client: 'bcoin', message: 'bad-witness-nonstandard' },
      { client: 'bcoin', message: 'multi-op-return' },
    ],
  },
];

export function classifyBitcoinReason(reason: string): BitcoinReasonRow | undefined {
  return BITCOIN_NODE_REASONS.find((row) => row.pattern.test(reason));
}

/** A back end's refusal as a typed error; an unknown reason is a permanent `invalid` rejection. */
export function bitcoinRejection(reason: string, code: number | undefined, context: string): NodeRejectionError {
  const row = classifyBitcoinReason(reason);
  return new NodeRejectionError(row?.kind ?? 'invalid', `${context}: ${reason}`, row?.retryable ?? false, code === undefined ? {} : { nodeCode: code });
}
