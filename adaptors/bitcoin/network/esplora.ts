import { UpstreamError } from '../../../src/platform/errors.js';
import { BroadcastRejected, type BackendBlock, type BackendTxStatus, type BitcoinBackend, type Outspend, type Prevout, type Utxo } from './backend.js';
import { httpRequest, parseJson } from './http.js';
import type { HttpFetch } from '../../../src/platform/http-client.js';

/** Shapes of the Esplora REST API (github.com/Blockstream/esplora/blob/master/API.md). */
interface EsploraStatus {
  confirmed: boolean;
  block_height?: number;
  block_hash?: string;
  block_time?: number;
}
interface EsploraUtxo {
  txid: string;
  vout: number;
  status: EsploraStatus;
  value: number;
}
interface EsploraStats {
  funded_txo_count: number;
  funded_txo_sum: number;
  spent_txo_count: number;
  spent_txo_sum: number;
  tx_count: number;
}
interface EsploraAddress {
  address: string;
  chain_stats: EsploraStats;
  mempool_stats: EsploraStats;
}
interface EsploraTx {
  txid: string;
  vin: { txid: string; vout: number; is_coinbase: boolean; prevout: { scriptpubkey_address?: string } | null }[];
  vout?: { scriptpubkey_address?: string; value: number }[];
}
interface EsploraBlock {
  id: string;
  height: number;
  previousblockhash: string | null;
  timestamp: number;
  tx_count: number;
}

/** Esplora's page size of `/block/:hash/txs/:start`. */
const BLOCK_TXS_PAGE = 25;

/** Esplora's broadcast error: `sendrawtransaction RPC error: {"code":-26,"message":"…"}`. */
function rejectionReason(text: string): { reason: string; code?: number } {
  const json = /\{.*\}/s.exec(text);
  if (json) {
    try {
      const e = JSON.parse(json[0]) as { code?: number; message?: string };
      if (typeof e.message === 'string') return { reason: e.message, code: e.code };
    } catch {
      // not JSON after all: fall through to the raw text
    }
  }
  return { reason: text.trim() || 'rejected without a reason' };
}

export class EsploraBackend implements BitcoinBackend {
  readonly kind = 'esplora';
  readonly node: string;
  private readonly base: string;

  constructor(
    url: string,
    private readonly fetchFn: HttpFetch,
  ) {
    this.base = url.replace(/\/+$/, '');
    this.node = new URL(url).host;
  }

  private async get(path: string, allow404 = false): Promise<string | undefined> {
    const { status, text } = await httpRequest(this.fetchFn, 'Esplora', `${this.base}${path}`);
    if (status === 404 && allow404) return undefined;
    if (status !== 200) throw new UpstreamError(`Esplora GET ${path}: HTTP ${status} ${text.slice(0, 200)}`, false);
    return text;
  }

  private async getJson<T>(path: string): Promise<T> {
    return parseJson<T>('Esplora', (await this.get(path)) as string);
  }

  async tipHeight(): Promise<number> {
    const n = Number((await this.get('/blocks/tip/height')) as string);
    if (!Number.isSafeInteger(n)) throw new UpstreamError('Esplora tip height is not a number', true);
    return n;
  }

  async genesisHash(): Promise<string> {
    return ((await this.get('/block-height/0')) as string).trim();
  }

  async utxos(addresses: string[]): Promise<Utxo[]> {
    const lists = await Promise.all(
      addresses.map(async (address) => {
        const path = `/address/${encodeURIComponent(address)}/utxo`;
        const { status, text } = await httpRequest(this.fetchFn, 'Esplora', `${this.base}${path}`);
        // electrs answers 400 "Too many unspent transaction outputs (>N)" past its --utxos-limit; it has no paging.
        if (status === 400 && /too many unspent transaction outputs/i.test(text)) {
          throw new UpstreamError(
            `Esplora will not list the coins of ${address}: ${text.trim().slice(0, 200)} ` +
              'Esplora (electrs) caps the coins it lists per address (--utxos-limit); use an Esplora with a higher limit or Bitcoin Core (backend: core) for this ledger.',
            false,
          );
        }
        if (status !== 200) throw new UpstreamError(`Esplora GET ${path}: HTTP ${status} ${text.slice(0, 200)}`, false);
        const list = parseJson<EsploraUtxo[]>('Esplora', text);
        return list.map((u) => ({
          txid: u.txid,
          vout: u.vout,
          value: BigInt(u.value),
          address,
          confirmed: u.status.confirmed,
          blockHeight: u.status.block_height,
        }));
      }),
    );
    return lists.flat();
  }

  async prevouts(txid: string): Promise<Prevout[]> {
    const tx = await this.getJson<EsploraTx>(`/tx/${txid}`);
    return tx.vin.map((i) => ({ txid: i.txid, vout: i.vout, address: i.prevout?.scriptpubkey_address ?? '' }));
  }

  async addressesUsed(addresses: string[]): Promise<boolean[]> {
    return Promise.all(
      addresses.map(async (a) => {
        const s = await this.getJson<EsploraAddress>(`/address/${encodeURIComponent(a)}`);
        return s.chain_stats.tx_count + s.mempool_stats.tx_count > 0;
      }),
    );
  }

  /** Esplora answers `{"1": 87.88, "2": …, "144": 1.02}` in sat/vB; a missing target takes the next slower one. */
  async feeRate(targetBlocks: number): Promise<number | undefined> {
    const table = await this.getJson<Record<string, number>>('/fee-estimates');
    const targets = Object.keys(table)
      .map(Number)
      .filter((t) => Number.isInteger(t) && t >= targetBlocks)
      .sort((a, b) => a - b);
    const rate = targets.length ? table[String(targets[0])] : undefined;
    return typeof rate === 'number' && rate > 0 ? rate : undefined;
  }

  /**
   * Esplora relays its node's answer. An older node refuses bytes it holds with a text
   * (`txn-already-in-mempool`: network/errors.ts); a recent Core answers them with the txid, as
   * a new send (see core-rpc.ts), so a 200 cannot tell the two apart and is reported as new.
   */
  async broadcast(hex: string): Promise<{ txid: string; alreadyKnown: boolean }> {
    const { status, text } = await httpRequest(this.fetchFn, 'Esplora', `${this.base}/tx`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: hex,
    });
    if (status === 200) return { txid: text.trim(), alreadyKnown: false };
    const { reason, code } = rejectionReason(text);
    throw new BroadcastRejected(reason, code);
  }

  /**
   * electrs answers `/tx/:txid/status` with `{"confirmed":false}` for every transaction not in a
   * block, whether in its mempool or unknown (it looks only for a confirming block), so an
   * unconfirmed answer is checked against `/tx/:txid/outspends`, which is 404 for a transaction
   * it does not have, and small (one entry per output).
   */
  async txStatus(txid: string): Promise<BackendTxStatus | undefined> {
    const text = await this.get(`/tx/${txid}/status`, true);
    if (text === undefined) return undefined;
    const s = parseJson<EsploraStatus>('Esplora', text);
    if (s.confirmed) return { confirmed: true, blockHeight: s.block_height };
    if ((await this.get(`/tx/${txid}/outspends`, true)) === undefined) return undefined;
    return { confirmed: false };
  }

  /**
   * Esplora `GET /tx/:txid/outspend/:vout`: `{spent, txid?, vin?, status?}`; `status` is the
   * spender's (`confirmed`, `block_height`). A spent answer without a status counts as seen only
   * in a mempool: nothing short of a block proves a conflict.
   */
  async outspend(txid: string, vout: number): Promise<Outspend> {
    const r = await this.getJson<{ spent: boolean; txid?: string; status?: EsploraStatus }>(`/tx/${txid}/outspend/${vout}`);
    if (r.spent !== true) return { spent: false };
    const confirmed = r.status?.confirmed === true;
    const height = confirmed ? r.status?.block_height : undefined;
    return { spent: true, ...(typeof r.txid === 'string' ? { txid: r.txid } : {}), confirmed, ...(height !== undefined ? { blockHeight: height } : {}) };
  }

  /** Raw hex of a known transaction (tests and diagnostics). */
  async txHex(txid: string): Promise<string | undefined> {
    return (await this.get(`/tx/${txid}/hex`, true))?.trim();
  }

  async tip(): Promise<{ height: number; hash: string }> {
    const hash = ((await this.get('/blocks/tip/hash')) as string).trim();
    return { height: (await this.getJson<EsploraBlock>(`/block/${hash}`)).height, hash };
  }

  /**
   * The block at `height` and its transactions with their prevouts: `/block-height`, `/block`,
   * then the pages of `/block/:hash/txs/:start` (25 transactions each) side by side.
   */
  async blockAt(height: number): Promise<BackendBlock | undefined> {
    const hash = (await this.get(`/block-height/${height}`, true))?.trim();
    if (!hash) return undefined;
    const b = await this.getJson<EsploraBlock>(`/block/${hash}`);
    const starts = Array.from({ length: Math.ceil(b.tx_count / BLOCK_TXS_PAGE) }, (_, i) => i * BLOCK_TXS_PAGE);
    const pages = await Promise.all(starts.map((start) => this.getJson<EsploraTx[]>(`/block/${hash}/txs/${start}`)));
    return {
      hash: b.id,
      height: b.height,
      parentHash: b.previousblockhash ?? '',
      time: b.timestamp,
      txs: pages.flat().map((tx) => ({
        txid: tx.txid,
        coinbase: tx.vin.some((i) => i.is_coinbase),
        from: tx.vin.flatMap((i) => (i.prevout?.scriptpubkey_address ? [i.prevout.scriptpubkey_address] : [])),
        outputs: (tx.vout ?? []).map((o) => ({ ...(o.scriptpubkey_address ? { address: o.scriptpubkey_address } : {}), value: BigInt(o.value) })),
      })),
    };
  }
}
