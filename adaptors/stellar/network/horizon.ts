import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import type { HttpAnswer, HttpFetch } from '../../../src/platform/http-client.js';

/**
 * Minimal Horizon client over an injected fetch. The SDK's Horizon.Server is not used
 * because its transport (axios) cannot be injected, and tests replay recorded responses.
 * Types list only the fields the adaptor reads.
 */

export interface HorizonBalance {
  balance: string;
  selling_liabilities?: string;
  asset_type: string;
  asset_code?: string;
  asset_issuer?: string;
  limit?: string;
}

export interface HorizonAccount {
  id: string;
  account_id: string;
  sequence: string;
  subentry_count: number;
  num_sponsoring?: number;
  num_sponsored?: number;
  balances: HorizonBalance[];
  /** Data entries: name → value in base64. */
  data?: Record<string, string>;
}

export interface HorizonLedger {
  sequence: number;
  closed_at: string;
  hash?: string;
  prev_hash?: string;
  base_fee_in_stroops: number;
  base_reserve_in_stroops: number;
}

/** A payment operation as `/ledgers/{sequence}/payments?join=transactions` lists it. */
export interface HorizonPayment {
  id: string;
  paging_token: string;
  type: string;
  transaction_hash: string;
  transaction_successful?: boolean;
  source_account: string;
  /** payment, path payments */
  from?: string;
  to?: string;
  to_muxed_id?: string;
  amount?: string;
  asset_type?: string;
  asset_code?: string;
  asset_issuer?: string;
  /** create_account */
  account?: string;
  funder?: string;
  starting_balance?: string;
  transaction?: { memo_type?: string; memo?: string };
}

export interface HorizonFeeStats {
  last_ledger: string;
  last_ledger_base_fee: string;
  fee_charged: Record<string, string>;
}

export interface HorizonTransaction {
  /** For a fee-bump: the outer envelope's hash in history listings; the one asked for in `/transactions/{hash}`. */
  hash: string;
  /** Position in history listings, the `cursor` for the next page. */
  paging_token?: string;
  /** Fee-bumps (CAP-15): the outer envelope's hash and the wrapped transaction's. */
  fee_bump_transaction?: { hash: string };
  inner_transaction?: { hash: string };
  ledger: number;
  successful: boolean;
  /** The (inner) transaction's source, a `G…` account even when the envelope names it muxed. */
  source_account: string;
  /** The sequence number the (inner) transaction consumed. */
  source_account_sequence: string;
  /** Who paid the fee: for a fee-bump, its fee source (a `G…` account). */
  fee_account?: string;
  fee_charged: string;
  result_xdr: string;
}

export interface HorizonRoot {
  network_passphrase: string;
  history_latest_ledger: number;
  history_latest_ledger_closed_at?: string;
  core_latest_ledger?: number;
}

export interface ResultCodes {
  transaction: string;
  operations?: string[];
}

/** Horizon's 400 `transaction_failed`: the ledger's result codes, for the caller to judge. */
export class HorizonSubmitError extends UpstreamError {
  constructor(
    readonly resultCodes: ResultCodes,
    readonly resultXdr: string | undefined,
  ) {
    super(
      `Horizon rejected the transaction: ${resultCodes.transaction}${resultCodes.operations ? ` [${resultCodes.operations.join(', ')}]` : ''}`,
      false,
      undefined,
      'ERR_LEDGER_REJECTED',
    );
  }
}

/**
 * Horizon's 400 `transaction_malformed`: it could not decode the envelope at all. The bytes
 * themselves are at fault, the same on every Horizon at every time.
 */
export class HorizonMalformedError extends UpstreamError {
  constructor(detail: string) {
    super(`Horizon could not decode the transaction: ${detail}`, false, undefined, 'ERR_LEDGER_REJECTED');
  }
}

/**
 * Horizon's 504 on submission: stellar-core has the transaction but did not include it in
 * time (its fee bid is under the surge price, or the network is slow). It may still land.
 */
export class SubmissionTimeout extends UnavailableError {
  constructor() {
    super('Horizon timed out waiting for the transaction to be included; it is queued and may still land', undefined, 'ERR_SUBMISSION_TIMEOUT');
  }
}

/**
 * An answer together with the `Latest-Ledger` header of the Horizon instance that gave it:
 * the last ledger that instance had ingested. Horizon sets the header on its state endpoints
 * (`/accounts/{id}` among them, 404s included) from the same read transaction as the data, so
 * the data is as of that ledger; it does not set it on history endpoints (`/transactions/{hash}`,
 * `/ledgers`), where it is then undefined, as it is when a proxy strips it.
 */
export interface AsOf<T> {
  value: T | undefined;
  latestLedger: number | undefined;
}

interface Problem {
  type?: string;
  title?: string;
  detail?: string;
  extras?: { result_codes?: ResultCodes; result_xdr?: string; invalid_field?: string; reason?: string };
}

interface RequestOptions {
  method?: string;
  body?: string;
  allowMissing?: boolean;
}

/** The `Latest-Ledger` header as a ledger sequence; undefined when absent or not a positive integer. */
function latestLedgerOf(headers: HttpAnswer['headers']): number | undefined {
  const raw = headers.get('latest-ledger')?.trim() ?? '';
  if (!/^\d{1,10}$/.test(raw)) return undefined;
  const n = Number(raw);
  return n > 0 ? n : undefined;
}

export class HorizonClient {
  constructor(
    private readonly baseUrl: string,
    private readonly fetchFn: HttpFetch,
    private readonly timeoutMs = 30_000,
  ) {}

  root(): Promise<HorizonRoot> {
    return this.request<HorizonRoot>('/') as Promise<HorizonRoot>;
  }

  /** Undefined when the account does not exist (yet). */
  account(id: string): Promise<HorizonAccount | undefined> {
    return this.request<HorizonAccount>(`/accounts/${encodeURIComponent(id)}`, { allowMissing: true });
  }

  /** The account (undefined when missing) with the answering instance's latest ledger. */
  accountAsOf(id: string): Promise<AsOf<HorizonAccount>> {
    return this.exchange<HorizonAccount>(`/accounts/${encodeURIComponent(id)}`, { allowMissing: true });
  }

  feeStats(): Promise<HorizonFeeStats> {
    return this.request<HorizonFeeStats>('/fee_stats') as Promise<HorizonFeeStats>;
  }

  async latestLedger(): Promise<HorizonLedger> {
    const page = (await this.request<{ _embedded: { records: HorizonLedger[] } }>('/ledgers?order=desc&limit=1')) as {
      _embedded?: { records?: HorizonLedger[] };
    };
    const latest = page._embedded?.records?.[0];
    if (!latest) throw new UpstreamError('Horizon returned no ledger', true, undefined, 'ERR_NODE_UNAVAILABLE');
    return latest;
  }

  /** Undefined when the answering instance has not ingested ledger `sequence` (or it is older than its history). */
  ledger(sequence: number): Promise<HorizonLedger | undefined> {
    return this.request<HorizonLedger>(`/ledgers/${sequence}`, { allowMissing: true });
  }

  /** Undefined when Horizon has no such transaction (not submitted, not yet ingested, or rejected). */
  transaction(hash: string): Promise<HorizonTransaction | undefined> {
    return this.request<HorizonTransaction>(`/transactions/${hash}`, { allowMissing: true });
  }

  /** The transaction (undefined when not found) with the answering instance's latest ledger, if it says. */
  transactionAsOf(hash: string): Promise<AsOf<HorizonTransaction>> {
    return this.exchange<HorizonTransaction>(`/transactions/${hash}`, { allowMissing: true });
  }

  /**
   * One page of the transactions that involve account `id` (as source, fee payer, operation
   * source or destination), newest first, failed ones included: they consumed their sequence
   * numbers too. `cursor`: a record's `paging_token`, for the records older than it. Horizon
   * answers an account it never saw with an empty page; a 404 is taken as one too.
   */
  async accountTransactions(id: string, limit: number, cursor?: string): Promise<HorizonTransaction[]> {
    const query = new URLSearchParams({ order: 'desc', limit: String(limit), include_failed: 'true', ...(cursor ? { cursor } : {}) });
    const page = await this.request<{ _embedded?: { records?: HorizonTransaction[] } }>(
      `/accounts/${encodeURIComponent(id)}/transactions?${query.toString()}`,
      {
        allowMissing: true,
      },
    );
    return page?._embedded?.records ?? [];
  }

  /**
   * Every payment operation (payment, create_account, path payments…) of ledger `sequence`'s
   * successful transactions, each with its transaction (memo), a page of 200 at a time.
   */
  async ledgerPayments(sequence: number): Promise<HorizonPayment[]> {
    const out: HorizonPayment[] = [];
    for (let cursor = ''; ;) {
      const query = new URLSearchParams({ limit: '200', order: 'asc', include_failed: 'false', join: 'transactions', ...(cursor ? { cursor } : {}) });
      const page = await this.request<{ _embedded?: { records?: HorizonPayment[] } }>(`/ledgers/${sequence}/payments?${query.toString()}`);
      const records = page?._embedded?.records ?? [];
      out.push(...records);
      if (records.length < 200) return out;
      cursor = (records.at(-1) as HorizonPayment).paging_token;
    }
  }

  /** Synchronous submission: answers once the transaction is in a ledger, or with its result codes. */
  submit(envelopeBase64: string): Promise<HorizonTransaction> {
    return this.request<HorizonTransaction>('/transactions', {
      method: 'POST',
      body: new URLSearchParams({ tx: envelopeBase64 }).toString(),
    }) as Promise<HorizonTransaction>;
  }

  private async request<T>(path: string, opts: RequestOptions = {}): Promise<T | undefined> {
    return (await this.exchange<T>(path, opts)).value;
  }

  private async exchange<T>(path: string, opts: RequestOptions = {}): Promise<AsOf<T>> {
    const url = `${this.baseUrl.replace(/\/+$/, '')}${path}`;
    let res: HttpAnswer;
    try {
      res = await this.fetchFn(url, {
        method: opts.method ?? 'GET',
        headers: {
          accept: 'application/json',
          ...(opts.body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: opts.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (e) {
      throw new UnavailableError(`Horizon unreachable: ${(e as Error).message}`, e, 'ERR_NODE_UNAVAILABLE');
    }
    // 504 on submission is Horizon's own timeout: the transaction may still land.
    if (res.status === 504 && opts.method === 'POST') throw new SubmissionTimeout();
    if (res.status >= 500 || res.status === 429) {
      throw new UnavailableError(`Horizon answered HTTP ${res.status} for ${path.split('?')[0]}`, undefined, 'ERR_NODE_UNAVAILABLE');
    }
    const text = await res.text();
    let body: unknown;
    try {
      body = JSON.parse(text);
    } catch (e) {
      throw new UpstreamError(`Horizon answered HTTP ${res.status} with non-JSON`, true, e, 'ERR_NODE_UNAVAILABLE');
    }
    const latestLedger = latestLedgerOf(res.headers);
    if (res.ok) return { value: body as T, latestLedger };
    if (res.status === 404 && opts.allowMissing) return { value: undefined, latestLedger };
    const problem = body as Problem;
    const codes = problem.extras?.result_codes;
    if (res.status === 400 && codes?.transaction) throw new HorizonSubmitError(codes, problem.extras?.result_xdr);
    if (res.status === 400 && problem.type?.endsWith('/transaction_malformed')) throw new HorizonMalformedError(problem.detail ?? problem.title ?? 'no detail');
    const why = problem.extras?.reason ?? problem.detail ?? problem.title ?? 'no detail';
    throw new UpstreamError(`Horizon answered HTTP ${res.status} for ${path.split('?')[0]}: ${why}`, false, undefined, 'ERR_UPSTREAM');
  }
}
