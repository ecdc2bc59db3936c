import { ledgerPayments } from './payments-json.js';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { StrKey } from '@stellar/stellar-sdk';
import { submitEnvelope } from './apply.js';
import {
  accountJson,
  accountTransactionsJson,
  badRequest,
  feeStatsJson,
  ledgerJson,
  notFound,
  SIMULATOR_NOTICE,
  submissionTimeout,
  transactionFailed,
  transactionJson,
  transactionMalformed,
  type Problem,
} from './horizon-json.js';
import type { LedgerState } from './ledger.js';

/** HTTP routes of the simulator: the Horizon subset the Stellar adaptor uses, plus friendbot. */

export interface Routes {
  state: LedgerState;
  passphrase: string;
  baseUrl: () => string;
  /** Friendbot: funds `addr` from the root account through a real signed transaction. */
  friendbot: (addr: string) => Problem | { status: number; body: unknown };
}

const MAX_BODY = 256 * 1024;

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const problem = status >= 400;
  res.writeHead(status, {
    'content-type': problem ? 'application/problem+json; charset=utf-8' : 'application/hal+json; charset=utf-8',
    'x-simulator': 'stellar-ledger',
    ...headers,
  });
  res.end(JSON.stringify(body, null, 2));
}

async function readBody(req: IncomingMessage): Promise<string> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function envelopeFrom(req: IncomingMessage, body: string): string | undefined {
  if ((req.headers['content-type'] ?? '').includes('application/json')) {
    try {
      const tx = (JSON.parse(body) as { tx?: unknown }).tx;
      return typeof tx === 'string' ? tx : undefined;
    } catch {
      return undefined;
    }
  }
  return new URLSearchParams(body).get('tx') ?? undefined;
}

export function handler(routes: Routes) {
  const { state, passphrase } = routes;
  return async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://local');
    const path = url.pathname.replace(/\/+$/, '') || '/';
    const base = routes.baseUrl();
    const answer = (p: Problem | { status: number; body: unknown }) => send(res, p.status, p.body);
    try {
      if (req.method === 'GET' && path === '/') {
        const latest = state.latest();
        return send(res, 200, {
          _links: {
            account: { href: `${base}/accounts/{account_id}`, templated: true },
            fee_stats: { href: `${base}/fee_stats` },
            friendbot: { href: `${base}/friendbot{?addr}`, templated: true },
            ledger: { href: `${base}/ledgers/{sequence}`, templated: true },
            ledgers: { href: `${base}/ledgers{?cursor,limit,order}`, templated: true },
            transaction: { href: `${base}/transactions/{hash}`, templated: true },
          },
          horizon_version: 'simulator',
          core_version: 'none (simulator)',
          ingest_latest_ledger: latest.sequence,
          history_latest_ledger: latest.sequence,
          history_latest_ledger_closed_at: new Date(latest.closedAt).toISOString(),
          history_elder_ledger: state.ledgers[0]?.sequence ?? 1,
          core_latest_ledger: latest.sequence,
          network_passphrase: passphrase,
          current_protocol_version: 21,
          supported_protocol_version: 21,
          core_supported_protocol_version: 21,
          simulator: true,
          simulator_notice: SIMULATOR_NOTICE,
        });
      }
      const account = /^\/accounts\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && account) {
        // A state endpoint: Horizon's StateMiddleware sets Latest-Ledger before the handler
        // runs, so 400 and 404 answers carry it too. History endpoints (/transactions/{hash},
        // /accounts/{id}/transactions, /ledgers) and the root do not set it, and neither does
        // the simulator there.
        const asOf = { 'latest-ledger': String(state.latest().sequence) };
        const id = decodeURIComponent(account[1] as string);
        if (!StrKey.isValidEd25519PublicKey(id)) {
          const p = badRequest('account_id', 'Account ID must start with `G` and contain 56 alphanum characters');
          return send(res, p.status, p.body, asOf);
        }
        const entry = state.accounts.get(id);
        if (!entry) return send(res, 404, notFound().body, asOf);
        return send(res, 200, accountJson(base, entry), asOf);
      }
      const history = /^\/accounts\/([^/]+)\/transactions$/.exec(path);
      if (req.method === 'GET' && history) {
        // A history endpoint: no Latest-Ledger header.
        const id = decodeURIComponent(history[1] as string);
        if (!StrKey.isValidEd25519PublicKey(id)) return answer(badRequest('account_id', 'Account ID must start with `G` and contain 56 alphanum characters'));
        const q = url.searchParams;
        const limit = q.get('limit') ?? '10';
        if (!/^\d{1,3}$/.test(limit) || Number(limit) < 1 || Number(limit) > 200)
          return answer(badRequest('limit', 'limit argument must be between 1 and 200'));
        const order = q.get('order') ?? 'asc';
        if (order !== 'asc' && order !== 'desc') return answer(badRequest('order', 'order: invalid value; must be asc or desc'));
        const cursor = q.get('cursor') ?? '';
        if (cursor !== '' && cursor !== 'now' && !/^\d{1,19}$/.test(cursor)) return answer(badRequest('cursor', 'cursor: invalid int64 value'));
        const failed = q.get('include_failed') ?? 'false';
        if (failed !== 'true' && failed !== 'false') return answer(badRequest('include_failed', 'include_failed must be true or false'));
        // `now`: after the latest ledger (nothing in ascending order; everything in descending).
        const at = cursor === 'now' ? BigInt(state.latest().sequence + 1) << 32n : cursor === '' ? undefined : BigInt(cursor);
        return send(
          res,
          200,
          accountTransactionsJson(base, id, state.transactions.values(), {
            cursor: at,
            limit: Number(limit),
            desc: order === 'desc',
            includeFailed: failed === 'true',
          }),
        );
      }
      if (req.method === 'GET' && path === '/fee_stats') return send(res, 200, feeStatsJson(state.latest(), state.surgeFee));
      if (req.method === 'GET' && path === '/ledgers') {
        const limit = Math.min(200, Math.max(1, Number(url.searchParams.get('limit') ?? 10) || 10));
        const desc = url.searchParams.get('order') === 'desc';
        const list = desc ? state.ledgers.slice(-limit).reverse() : state.ledgers.slice(0, limit);
        return send(res, 200, {
          _links: { self: { href: `${base}/ledgers?${url.searchParams.toString()}` } },
          _embedded: { records: list.map((h) => ledgerJson(base, h)) },
        });
      }
      const payments = /^\/ledgers\/(\d+)\/payments$/.exec(path);
      if (req.method === 'GET' && payments) {
        // One page holds a ledger's payments here: the simulator closes a ledger per transaction.
        if (!state.ledger(Number(payments[1]))) return answer(notFound());
        const records = url.searchParams.get('cursor') ? [] : ledgerPayments(state, passphrase, Number(payments[1]));
        return send(res, 200, { _links: { self: { href: `${base}${path}?${url.searchParams.toString()}` } }, _embedded: { records } });
      }
      const ledger = /^\/ledgers\/(\d+)$/.exec(path);
      if (req.method === 'GET' && ledger) {
        const h = state.ledger(Number(ledger[1]));
        return h ? send(res, 200, ledgerJson(base, h)) : answer(notFound());
      }
      const tx = /^\/transactions\/([^/]+)$/.exec(path);
      if (req.method === 'GET' && tx) {
        const hash = (tx[1] as string).toLowerCase();
        if (!/^[0-9a-f]{64}$/.test(hash)) return answer(badRequest('tx_id', 'Transaction hash must be a hex-encoded, lowercase SHA-256 hash'));
        // A fee-bump is found by its own hash and by the hash of the transaction it wraps.
        const record = state.transactions.get(hash) ?? state.transactions.get(state.innerIndex.get(hash) ?? '');
        return record ? send(res, 200, transactionJson(base, record)) : answer(notFound());
      }
      if (req.method === 'POST' && path === '/transactions') {
        const envelope = envelopeFrom(req, await readBody(req));
        if (!envelope) return answer(badRequest('tx', 'Transaction is not a valid base64-encoded TransactionEnvelope'));
        const out = submitEnvelope(state, passphrase, envelope);
        if (out.kind === 'malformed') return answer(transactionMalformed(envelope));
        if (out.kind === 'rejected') return answer(transactionFailed(out.envelopeXdr, out.resultXdr, { transaction: out.transaction }));
        if (out.kind === 'queued') return answer(submissionTimeout());
        const r = out.record;
        if (!r.successful) {
          return answer(transactionFailed(r.envelopeXdr, r.resultXdr, { transaction: 'tx_failed', operations: r.operationCodes }));
        }
        return send(res, 200, transactionJson(base, r));
      }
      if (req.method === 'GET' && path === '/friendbot') {
        const addr = url.searchParams.get('addr') ?? '';
        if (!StrKey.isValidEd25519PublicKey(addr)) return answer(badRequest('addr', 'addr must be a G… account id'));
        return answer(routes.friendbot(addr));
      }
      return answer(notFound());
    } catch (e) {
      return send(res, 500, {
        type: 'https://stellar.org/horizon-errors/server_error',
        title: 'Internal Server Error',
        status: 500,
        detail: `simulator error: ${(e as Error).message}`,
      });
    }
  };
}
