import { UnavailableError, UpstreamError } from '../../../src/platform/errors.js';
import {
  BroadcastRejected,
  type BackendBlock,
  type BackendTxStatus,
  type BitcoinBackend,
  type Outspend,
  type Prevout,
  type StatusAndSpends,
  type Utxo,
} from './backend.js';
import type { HttpAnswer, HttpFetch } from '../../../src/platform/http-client.js';

/** An error Bitcoin Core answered, with its RPC code (e.g. -26 RPC_VERIFY_REJECTED). */
export class CoreRpcError extends UpstreamError {
  constructor(
    readonly method: string,
    readonly rpcCode: number,
    readonly rpcMessage: string,
  ) {
    super(`bitcoind ${method}: ${rpcMessage} (code ${rpcCode})`, false, undefined, 'ERR_NODE_REJECTED');
  }
}

interface RpcReply {
  id: number;
  result: unknown;
  error: { code: number; message: string } | null;
}

// Core prints BTC amounts as JSON numbers; keep their text so no float ever touches a satoshi
// (`fee`: each transaction's, in getblock 2/3 and getrawtransaction 2).
const AMOUNT_FIELDS = /"(amount|total_amount|feerate|value|fee)"\s*:\s*(-?\d+(?:\.\d+)?)/g;

/** `0.00012345` BTC as text → 12345n satoshis, exactly. */
export function btcTextToSats(text: string): bigint {
  const m = /^(\d+)(?:\.(\d{1,8}))?$/.exec(text);
  if (!m) throw new UpstreamError(`bitcoind amount '${text}' is not a BTC amount`, false);
  return BigInt(`${m[1]}${(m[2] ?? '').padEnd(8, '0')}`);
}

const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_INVALID_PARAMETER = -8;
const RPC_IN_WARMUP = -28;
const RPC_METHOD_NOT_FOUND = -32601;

/**
 * Core answers `getrawtransaction` of a transaction it cannot look up with -5 in every case
 * (src/rpc/rawtransaction.cpp): "No such mempool or blockchain transaction" only says it does
 * not have it when its txindex is on and synced. Without txindex ("No such mempool transaction.
 * Use -txindex or provide a block hash to enable blockchain transaction queries") or while it
 * is still building ("… Blockchain transactions are still in the process of being indexed")
 * every mined transaction gets the same -5: that is no answer, never evidence of absence.
 */
const CANNOT_LOOK_UP = /-txindex|being indexed/i;

/** A transaction's status from `getrawtransaction … true` and `getblockcount` answered together. */
function readStatus(txid: string, r: unknown, tip: unknown): BackendTxStatus | undefined {
  if (r instanceof CoreRpcError) {
    if (r.rpcCode === RPC_INVALID_ADDRESS_OR_KEY) {
      if (CANNOT_LOOK_UP.test(r.rpcMessage)) {
        throw new UnavailableError(
          `bitcoind cannot look up ${txid} (its txindex is off or not synced; txindex=1 is required): ${r.rpcMessage}`,
          r,
          'ERR_NODE_UNAVAILABLE',
        );
      }
      return undefined;
    }
    throw r;
  }
  if (tip instanceof CoreRpcError) throw tip;
  const tx = r as { confirmations?: number; blockhash?: string };
  if (!tx.blockhash || !tx.confirmations) return { confirmed: false };
  return { confirmed: true, blockHeight: (tip as number) - tx.confirmations + 1 };
}

/**
 * An output's spend from `gettxout` with and without the mempool. Core keeps no index of
 * spenders, so no txid; spent in the mempool while still in the chain's UTXO set is a spend
 * seen only in a mempool (`confirmed: false`); gone from both, it cannot tell.
 */
function readOutspend(withMempool: unknown, chainOnly: unknown): Outspend {
  if (withMempool instanceof CoreRpcError) throw withMempool;
  if (chainOnly instanceof CoreRpcError) throw chainOnly;
  if (withMempool !== null) return { spent: false };
  return chainOnly !== null ? { spent: true, confirmed: false } : { spent: true };
}

/** An output script as Core shows it: `address` since Core 22, `addresses` (one for a standard script) before. */
interface CoreScript {
  address?: string;
  addresses?: string[];
}

/** A block of `getblock <hash> 3` (Core 23 and later: inputs with their `prevout`), or of 2 (none). Amounts are text (AMOUNT_FIELDS). */
interface CoreBlock {
  hash: string;
  height: number;
  previousblockhash?: string;
  time: number;
  tx: {
    txid: string;
    vin: { coinbase?: string; txid?: string; vout?: number; prevout?: { value: string; scriptPubKey: CoreScript } }[];
    vout: { value: string; n: number; scriptPubKey: CoreScript }[];
  }[];
}

const addressOf = (s: CoreScript | undefined): string | undefined => s?.address ?? (s?.addresses?.length === 1 ? s.addresses[0] : undefined);

/** Transactions whose outputs one `getrawtransaction` batch asks for, in the fallback for a block without prevouts. */
const PREVOUT_BATCH = 500;

/**
 * Bitcoin Core JSON-RPC, without a wallet: balances come from `scantxoutset` (confirmed UTXO
 * set only, so unconfirmed change is invisible until mined), mempool spends are filtered
 * with `gettxout … include_mempool=true`, and `txStatus` of mined transactions needs
 * `txindex=1` on the node.
 */
export class CoreRpcBackend implements BitcoinBackend {
  readonly kind = 'core';
  readonly node: string;
  private readonly url: string;
  private readonly auth?: string;
  private nextId = 1;
  // Core runs one scantxoutset at a time per node ("Scan already in progress"): queue ours.
  private scanQueue: Promise<unknown> = Promise.resolve();

  constructor(
    url: string,
    private readonly fetchFn: HttpFetch,
    /** Output script hex of an address on this ledger's network, to map scan results back. */
    private readonly scriptFor: (address: string) => string,
    credentials: { username?: string; password?: string } = {},
  ) {
    // fetch refuses URLs with credentials in them; move them into a header.
    const parsed = new URL(url);
    const user = credentials.username ?? decodeURIComponent(parsed.username);
    const pass = credentials.password ?? decodeURIComponent(parsed.password);
    parsed.username = '';
    parsed.password = '';
    this.url = parsed.toString();
    this.node = parsed.host;
    if (user || pass) this.auth = `Basic ${Buffer.from(`${user}:${pass}`).toString('base64')}`;
  }

  /** One HTTP round trip; results in call order, errors as CoreRpcError in place of results. */
  async batch(calls: { method: string; params: unknown[] }[]): Promise<(unknown | CoreRpcError)[]> {
    if (calls.length === 0) return [];
    const first = this.nextId;
    this.nextId += calls.length;
    const body = calls.map((c, i) => ({ jsonrpc: '1.0', id: first + i, method: c.method, params: c.params }));
    let res: HttpAnswer;
    try {
      res = await this.fetchFn(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(this.auth ? { authorization: this.auth } : {}) },
        body: JSON.stringify(calls.length === 1 ? body[0] : body),
        signal: AbortSignal.timeout(60_000),
      });
    } catch (e) {
      throw new UnavailableError(`bitcoind unreachable: ${(e as Error).message}`, e, 'ERR_NODE_UNAVAILABLE');
    }
    const text = await res.text().catch(() => '');
    if (res.status === 401 || res.status === 403) throw new UpstreamError(`bitcoind refused the RPC credentials (HTTP ${res.status})`, false);
    let parsed: RpcReply | RpcReply[];
    try {
      // Core answers RPC errors with HTTP 500 and a JSON body, so the body decides, not the status.
      parsed = JSON.parse(text.replace(AMOUNT_FIELDS, '"$1":"$2"')) as RpcReply | RpcReply[];
    } catch {
      throw new UnavailableError(`bitcoind answered HTTP ${res.status}: ${text.slice(0, 200)}`, undefined, 'ERR_NODE_UNAVAILABLE');
    }
    const byId = new Map((Array.isArray(parsed) ? parsed : [parsed]).map((r) => [r.id, r]));
    return calls.map((c, i) => {
      const r = byId.get(first + i);
      if (!r) throw new UpstreamError(`bitcoind gave no answer to ${c.method}`, true);
      if (r.error) {
        if (r.error.code === RPC_IN_WARMUP) throw new UnavailableError(`bitcoind is starting: ${r.error.message}`);
        return new CoreRpcError(c.method, r.error.code, r.error.message);
      }
      return r.result;
    });
  }

  async call<T>(method: string, params: unknown[] = []): Promise<T> {
    const [r] = await this.batch([{ method, params }]);
    if (r instanceof CoreRpcError) throw r;
    return r as T;
  }

  tipHeight(): Promise<number> {
    return this.call<number>('getblockcount');
  }

  genesisHash(): Promise<string> {
    return this.call<string>('getblockhash', [0]);
  }

  async utxos(addresses: string[]): Promise<Utxo[]> {
    if (addresses.length === 0) return [];
    const byScript = new Map(addresses.map((a) => [this.scriptFor(a), a]));
    const scan = this.scanQueue.then(() =>
      this.call<{ unspents: { txid: string; vout: number; scriptPubKey: string; amount: string; height: number }[] }>('scantxoutset', [
        'start',
        addresses.map((a) => `addr(${a})`),
      ]),
    );
    this.scanQueue = scan.catch(() => undefined);
    const { unspents } = await scan;
    const live = await this.batch(unspents.map((u) => ({ method: 'gettxout', params: [u.txid, u.vout, true] })));
    return unspents
      .filter((_, i) => live[i] !== null && !(live[i] instanceof CoreRpcError))
      .map((u) => ({
        txid: u.txid,
        vout: u.vout,
        value: btcTextToSats(u.amount),
        address: byScript.get(u.scriptPubKey) ?? '',
        confirmed: true,
        blockHeight: u.height,
      }));
  }

  async prevouts(txid: string): Promise<Prevout[]> {
    const tx = await this.call<{ vin: { txid?: string; vout?: number; prevout?: { scriptPubKey?: { address?: string } } }[] }>('getrawtransaction', [txid, 2]);
    return tx.vin.map((i) => ({ txid: i.txid ?? '', vout: i.vout ?? 0, address: i.prevout?.scriptPubKey?.address ?? '' }));
  }

  async addressesUsed(): Promise<undefined> {
    return undefined;
  }

  /** `estimatesmartfee` answers BTC per kvB; 1 BTC/kvB = 100,000 sat/vB. */
  async feeRate(targetBlocks: number): Promise<number | undefined> {
    const r = await this.call<{ feerate?: string; errors?: string[] }>('estimatesmartfee', [targetBlocks]);
    if (r.feerate === undefined) return undefined;
    return Number(btcTextToSats(r.feerate)) / 1000;
  }

  /**
   * Core answers a transaction its mempool already holds with its txid, as it answers a new one
   * (src/node/transaction.cpp, BroadcastTransaction: it only announces it again). So its
   * mempool is asked first, in the same batch, which Core runs in order: an entry there means
   * these bytes were known. Any error of that question (-5 "Transaction not in mempool") means
   * they were not, or the node cannot say: sent as new.
   */
  async broadcast(hex: string, txid: string): Promise<{ txid: string; alreadyKnown: boolean }> {
    const [entry, sent] = await this.batch([
      { method: 'getmempoolentry', params: [txid] },
      { method: 'sendrawtransaction', params: [hex] },
    ]);
    if (sent instanceof CoreRpcError) throw new BroadcastRejected(sent.rpcMessage, sent.rpcCode);
    return { txid: sent as string, alreadyKnown: entry !== null && !(entry instanceof CoreRpcError) };
  }

  /** `gettxout` with the mempool, and without it, in one batch: null once spent. */
  async outspend(txid: string, vout: number): Promise<Outspend> {
    const [withMempool, chainOnly] = await this.batch([
      { method: 'gettxout', params: [txid, vout, true] },
      { method: 'gettxout', params: [txid, vout, false] },
    ]);
    return readOutspend(withMempool, chainOnly);
  }

  async txStatus(txid: string): Promise<BackendTxStatus | undefined> {
    const [r, tip] = await this.batch([
      { method: 'getrawtransaction', params: [txid, true] },
      { method: 'getblockcount', params: [] },
    ]);
    return readStatus(txid, r, tip);
  }

  /** `getrawtransaction`, `getblockcount` and the `gettxout`s in one JSON-RPC batch: one node answers all. */
  async statusAndSpends(txid: string, outpoints: { txid: string; vout: number }[]): Promise<StatusAndSpends> {
    const answers = await this.batch([
      { method: 'getrawtransaction', params: [txid, true] },
      { method: 'getblockcount', params: [] },
      ...outpoints.flatMap((o) => [
        { method: 'gettxout', params: [o.txid, o.vout, true] },
        { method: 'gettxout', params: [o.txid, o.vout, false] },
      ]),
    ]);
    const status = readStatus(txid, answers[0], answers[1]);
    return { status, spends: outpoints.map((_, k) => readOutspend(answers[2 + 2 * k], answers[3 + 2 * k])) };
  }

  /**
   * Core keeps no index of spenders: the newest `depth` blocks are read (`getblock … 2`, newest
   * first, one at a time since a verbose block is large) until one holds a spender of the output.
   * Each block's answer carries its own `confirmations` (-1 once off the best chain), so the
   * proof holds whichever node behind a balancer returned it.
   */
  async spendInRecentBlocks(txid: string, vout: number, depth: number): Promise<{ spender: string; confirmations: number } | undefined> {
    const tip = await this.call<number>('getblockcount');
    const heights = Array.from({ length: Math.max(0, Math.min(depth, tip + 1)) }, (_, i) => tip - i);
    const hashes = await this.batch(heights.map((h) => ({ method: 'getblockhash', params: [h] })));
    for (const hash of hashes) {
      if (hash instanceof CoreRpcError) throw hash;
      const block = await this.call<{ confirmations: number; tx: { txid: string; vin: { txid?: string; vout?: number }[] }[] }>('getblock', [hash, 2]);
      if (block.confirmations < 1) return undefined;
      const spender = block.tx.find((t) => t.vin.some((i) => i.txid === txid && i.vout === vout));
      if (spender) return { spender: spender.txid, confirmations: block.confirmations };
    }
    return undefined;
  }

  /** The best chain's tip: `getblockchaininfo` reads its height and hash under one lock, so they belong together. */
  async tip(): Promise<{ height: number; hash: string }> {
    const info = await this.call<{ blocks: number; bestblockhash: string }>('getblockchaininfo');
    return { height: info.blocks, hash: info.bestblockhash };
  }

  /**
   * The best chain's block at `height` for the deposit scanner: `getblockhash`, then
   * `getblock <hash> 3`, whose inputs carry the outputs they spend (`prevout`, Core 23 and
   * later), so the senders' addresses come with the block. A Core before 23 answers verbosity
   * 3 as 2 (no prevouts), as does any Core for a block off its best chain: then the spent
   * outputs are read with `getrawtransaction` (needs txindex=1, as txStatus does).
   */
  async blockAt(height: number): Promise<BackendBlock | undefined> {
    const [hash] = await this.batch([{ method: 'getblockhash', params: [height] }]);
    if (hash instanceof CoreRpcError) {
      // -8 "Block height out of range": past the tip.
      if (hash.rpcCode === RPC_INVALID_PARAMETER) return undefined;
      throw hash;
    }
    const b = await this.call<CoreBlock>('getblock', [hash, 3]);
    const lacking = b.tx.flatMap((tx) => tx.vin.filter((i) => i.coinbase === undefined && !i.prevout && i.txid !== undefined).map((i) => i.txid as string));
    const spent = lacking.length ? await this.outputAddresses([...new Set(lacking)]) : new Map<string, (string | undefined)[]>();
    return {
      hash: b.hash,
      height: b.height,
      parentHash: b.previousblockhash ?? '',
      time: b.time,
      txs: b.tx.map((tx) => ({
        txid: tx.txid,
        coinbase: tx.vin.some((i) => i.coinbase !== undefined),
        from: tx.vin.flatMap((i) => {
          const a = i.prevout ? addressOf(i.prevout.scriptPubKey) : i.txid !== undefined ? spent.get(i.txid)?.[i.vout ?? -1] : undefined;
          return a ? [a] : [];
        }),
        outputs: tx.vout.map((o) => {
          const address = addressOf(o.scriptPubKey);
          return { ...(address ? { address } : {}), value: btcTextToSats(o.value) };
        }),
      })),
    };
  }

  /** The address of each output of each transaction (by `n`), from `getrawtransaction … true` in batches. */
  private async outputAddresses(txids: string[]): Promise<Map<string, (string | undefined)[]>> {
    const out = new Map<string, (string | undefined)[]>();
    for (let i = 0; i < txids.length; i += PREVOUT_BATCH) {
      const part = txids.slice(i, i + PREVOUT_BATCH);
      const answers = await this.batch(part.map((txid) => ({ method: 'getrawtransaction', params: [txid, true] })));
      answers.forEach((r, k) => {
        if (r instanceof CoreRpcError) {
          throw new UnavailableError(
            `bitcoind answered getblock without the spent outputs (Core before 23, or a block off its best chain) and cannot look up ${part[k]} (txindex=1 is required): ${r.rpcMessage}`,
            r,
            'ERR_NODE_UNAVAILABLE',
          );
        }
        const tx = r as { vout: { n: number; scriptPubKey: CoreScript }[] };
        const list: (string | undefined)[] = [];
        for (const o of tx.vout) list[o.n] = addressOf(o.scriptPubKey);
        out.set(part[k] as string, list);
      });
    }
    return out;
  }

  /** `getindexinfo txindex`: `{}` without a txindex, `{txindex: {synced, best_block_height}}` with one. */
  async indexProblem(): Promise<string | undefined> {
    const [r] = await this.batch([{ method: 'getindexinfo', params: ['txindex'] }]);
    if (r instanceof CoreRpcError) {
      // Core before 0.21 (or a Core-like node) has no getindexinfo: nothing to tell from it.
      if (r.rpcCode === RPC_METHOD_NOT_FOUND) return undefined;
      throw r;
    }
    const info = (r as { txindex?: { synced?: boolean; best_block_height?: number } } | null)?.txindex;
    if (!info) return 'bitcoind runs without a transaction index (set txindex=1): it cannot tell the status of mined transactions';
    if (info.synced !== true) {
      return `bitcoind's transaction index is not synced yet (indexed to height ${info.best_block_height ?? '?'}): it cannot tell the status of mined transactions until it is`;
    }
    return undefined;
  }
}
