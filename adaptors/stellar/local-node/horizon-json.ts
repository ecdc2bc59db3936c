import { extractBaseAddress } from '@stellar/stellar-sdk';
import type { AccountEntry, LedgerHeader, TxRecord } from './ledger.js';

/**
 * Horizon's response bodies, field for field as Horizon 2.x renders them (amounts as
 * 7-decimal strings, int64 as strings, `_links`), limited to what the simulator knows.
 */

export const SIMULATOR_NOTICE =
  'Local Stellar ledger SIMULATOR for development and tests: not stellar-core, not Horizon. ' +
  'It implements a Horizon subset (accounts and their transactions, fee_stats, ledgers, transactions, friendbot) and ' +
  'payment, create_account, change_trust and manage_data with stellar-core rules.';

export function amount(stroops: bigint): string {
  const neg = stroops < 0n;
  const s = (neg ? -stroops : stroops).toString().padStart(8, '0');
  return `${neg ? '-' : ''}${s.slice(0, -7)}.${s.slice(-7)}`;
}

const iso = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
const link = (href: string, templated = false) => (templated ? { href, templated } : { href });

export function accountJson(base: string, a: AccountEntry) {
  const lines = [...a.trustlines].map(([key, t]) => {
    const [code = '', issuer = ''] = key.split(':');
    return {
      balance: amount(t.balance),
      limit: amount(t.limit),
      buying_liabilities: '0.0000000',
      selling_liabilities: '0.0000000',
      last_modified_ledger: t.lastModifiedLedger,
      is_authorized: true,
      is_authorized_to_maintain_liabilities: true,
      asset_type: code.length <= 4 ? 'credit_alphanum4' : 'credit_alphanum12',
      asset_code: code,
      asset_issuer: issuer,
    };
  });
  return {
    _links: {
      self: link(`${base}/accounts/${a.id}`),
      transactions: link(`${base}/accounts/${a.id}/transactions{?cursor,limit,order}`, true),
    },
    id: a.id,
    account_id: a.id,
    sequence: a.sequence.toString(),
    subentry_count: a.subentries,
    last_modified_ledger: a.lastModifiedLedger,
    thresholds: { low_threshold: 0, med_threshold: 0, high_threshold: 0 },
    flags: { auth_required: false, auth_revocable: false, auth_immutable: false, auth_clawback_enabled: false },
    balances: [...lines, { balance: amount(a.balance), buying_liabilities: '0.0000000', selling_liabilities: '0.0000000', asset_type: 'native' }],
    signers: [{ weight: 1, key: a.id, type: 'ed25519_public_key' }],
    // Horizon shows each data entry's value in base64.
    data: Object.fromEntries([...a.data].map(([name, value]) => [name, value.toString('base64')])),
    num_sponsoring: 0,
    num_sponsored: 0,
    paging_token: a.id,
  };
}

export function ledgerJson(base: string, h: LedgerHeader) {
  return {
    _links: { self: link(`${base}/ledgers/${h.sequence}`) },
    id: h.hash,
    paging_token: (BigInt(h.sequence) << 32n).toString(),
    hash: h.hash,
    prev_hash: h.prevHash,
    sequence: h.sequence,
    successful_transaction_count: h.successfulTxCount,
    failed_transaction_count: h.failedTxCount,
    operation_count: h.operationCount,
    tx_set_operation_count: h.operationCount,
    closed_at: iso(h.closedAt),
    total_coins: '100000000000.0000000',
    fee_pool: '0.0000000',
    base_fee_in_stroops: Number(h.baseFee),
    base_reserve_in_stroops: Number(h.baseReserve),
    max_tx_set_size: 1000,
    protocol_version: 21,
  };
}

/** Horizon's paging token of a transaction: its TOID (ledger, 1-based index in the ledger, operation 0); one transaction per ledger here. */
export function transactionPagingToken(t: TxRecord): bigint {
  return (BigInt(t.ledger) << 32n) + (1n << 12n);
}

export function transactionJson(base: string, t: TxRecord) {
  // Horizon names accounts by their `G…` id, a muxed one (`M…`) in the `*_muxed` fields beside it.
  const source = extractBaseAddress(t.sourceAccount);
  const feeAccount = t.feeBump?.feeAccount ?? t.sourceAccount;
  return {
    _links: {
      self: link(`${base}/transactions/${t.hash}`),
      account: link(`${base}/accounts/${source}`),
      ledger: link(`${base}/ledgers/${t.ledger}`),
    },
    id: t.hash,
    paging_token: transactionPagingToken(t).toString(),
    successful: t.successful,
    hash: t.hash,
    ledger: t.ledger,
    created_at: iso(t.createdAt),
    source_account: source,
    ...(t.sourceAccount.startsWith('M') ? { account_muxed: t.sourceAccount } : {}),
    source_account_sequence: t.sequence.toString(),
    fee_account: extractBaseAddress(feeAccount),
    ...(feeAccount.startsWith('M') ? { fee_account_muxed: feeAccount } : {}),
    fee_charged: t.feeCharged.toString(),
    max_fee: t.maxFee.toString(),
    operation_count: t.operationCount,
    envelope_xdr: t.envelopeXdr,
    result_xdr: t.resultXdr,
    memo_type: t.memoType,
    ...(t.memo === undefined ? {} : { memo: t.memo }),
    signatures: t.signatures,
    ...(t.feeBump
      ? {
          fee_bump_transaction: { hash: t.hash, signatures: t.signatures },
          inner_transaction: { hash: t.feeBump.innerHash, signatures: t.feeBump.innerSignatures, max_fee: t.feeBump.innerMaxFee.toString() },
        }
      : {}),
    ...(t.timeBounds
      ? {
          valid_after: iso(Number(t.timeBounds.minTime) * 1000),
          valid_before: iso(Number(t.timeBounds.maxTime) * 1000),
          preconditions: { timebounds: { min_time: t.timeBounds.minTime, max_time: t.timeBounds.maxTime } },
        }
      : {}),
  };
}

/**
 * `GET /accounts/{id}/transactions`: a page of the transactions the account participates in,
 * by paging token (`order`), after `cursor` in that order, failed ones only with
 * `include_failed`. Like Horizon, an account it never saw has an empty page, not a 404.
 */
export function accountTransactionsJson(
  base: string,
  account: string,
  all: Iterable<TxRecord>,
  q: { cursor?: bigint; limit: number; desc: boolean; includeFailed: boolean },
) {
  const mine = [...all].filter((t) => t.participants.includes(account) && (q.includeFailed || t.successful));
  const ordered = q.desc ? mine.reverse() : mine;
  const after =
    q.cursor === undefined
      ? ordered
      : ordered.filter((t) => (q.desc ? transactionPagingToken(t) < (q.cursor as bigint) : transactionPagingToken(t) > (q.cursor as bigint)));
  const records = after.slice(0, q.limit);
  const page = (cursor: string, desc: boolean) =>
    link(
      `${base}/accounts/${account}/transactions?cursor=${cursor}&limit=${q.limit}&order=${desc ? 'desc' : 'asc'}${q.includeFailed ? '&include_failed=true' : ''}`,
    );
  const first = records[0];
  const last = records[records.length - 1];
  return {
    _links: {
      self: page(q.cursor === undefined ? '' : q.cursor.toString(), q.desc),
      next: page(last ? transactionPagingToken(last).toString() : (q.cursor?.toString() ?? ''), q.desc),
      prev: page(first ? transactionPagingToken(first).toString() : (q.cursor?.toString() ?? ''), !q.desc),
    },
    _embedded: { records: records.map((t) => transactionJson(base, t)) },
  };
}

/** Fees per operation of recent ledgers: the base fee, or the surge price while one is set. */
export function feeStatsJson(latest: LedgerHeader, surgeFee?: bigint) {
  const fee = (surgeFee !== undefined && surgeFee > latest.baseFee ? surgeFee : latest.baseFee).toString();
  const dist = Object.fromEntries(['max', 'min', 'mode', 'p10', 'p20', 'p30', 'p40', 'p50', 'p60', 'p70', 'p80', 'p90', 'p95', 'p99'].map((k) => [k, fee]));
  return {
    last_ledger: String(latest.sequence),
    last_ledger_base_fee: latest.baseFee.toString(),
    ledger_capacity_usage: '0.00',
    fee_charged: dist,
    max_fee: dist,
  };
}

export interface Problem {
  status: number;
  body: Record<string, unknown>;
}

const HORIZON_ERRORS = 'https://stellar.org/horizon-errors';

/** Horizon's answer when stellar-core did not include a submitted transaction in time: it is queued and may still land. */
export function submissionTimeout(): Problem {
  return {
    status: 504,
    body: {
      type: 'https://stellar.org/horizon-errors/timeout',
      title: 'Timeout',
      status: 504,
      detail:
        'Your request timed out before completing. Please try your request again. If you are submitting a transaction make sure you are sending exactly the same transaction (with the same sequence number).',
    },
  };
}

export function notFound(): Problem {
  return {
    status: 404,
    body: {
      type: `${HORIZON_ERRORS}/not_found`,
      title: 'Resource Missing',
      status: 404,
      detail:
        'The resource at the url requested was not found.  This usually occurs for one of two reasons:  ' +
        'The url requested is not valid, or no data in our database could be found with the parameters provided.',
    },
  };
}

export function badRequest(field: string, reason: string): Problem {
  return {
    status: 400,
    body: {
      type: `${HORIZON_ERRORS}/bad_request`,
      title: 'Bad Request',
      status: 400,
      detail: 'The request you sent was invalid in some way.',
      extras: { invalid_field: field, reason },
    },
  };
}

export function transactionMalformed(envelopeXdr: string): Problem {
  return {
    status: 400,
    body: {
      type: `${HORIZON_ERRORS}/transaction_malformed`,
      title: 'Transaction Malformed',
      status: 400,
      detail:
        'Horizon could not decode the transaction envelope in this request. A transaction should be an XDR ' +
        'TransactionEnvelope struct encoded using base64.  The envelope read from this request is echoed in ' +
        'the `extras.envelope_xdr` field of this response for your convenience.',
      extras: { envelope_xdr: envelopeXdr },
    },
  };
}

export function transactionFailed(envelopeXdr: string, resultXdr: string, codes: { transaction: string; operations?: string[] }): Problem {
  return {
    status: 400,
    body: {
      type: `${HORIZON_ERRORS}/transaction_failed`,
      title: 'Transaction Failed',
      status: 400,
      detail:
        'The transaction failed when submitted to the stellar network. The `extras.result_codes` field on this ' +
        'response contains further details.  Descriptions of each code can be found at: ' +
        'https://developers.stellar.org/docs/data/apis/horizon/api-reference/errors/http-status-codes/horizon-specific/transaction-failed',
      extras: { envelope_xdr: envelopeXdr, result_codes: codes, result_xdr: resultXdr },
    },
  };
}
