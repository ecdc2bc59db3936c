import type { IncomingMessage, ServerResponse } from 'node:http';
import { revHex, type BcoinCoin, type BcoinMeta } from './bcoin.js';
import { addressOf, NodeRejection, type RegtestNode } from './regtest-node.js';

/**
 * Request handler speaking the subset of the Esplora REST API the Bitcoin adaptor uses
 * (github.com/Blockstream/esplora/blob/master/API.md), with Esplora's response shapes and
 * error texts, over a bcoin regtest node. DEVELOPMENT FACADE, NOT PRODUCTION: no auth, no
 * limits, and dev-only `/dev/mine` and `/dev/faucet` routes.
 */

/** Fee table when bcoin's estimator has no data yet (always, on a fresh regtest chain), sat/vB by target. */
const DEFAULT_FEES: Record<number, number> = { 1: 4.0, 2: 3.0, 3: 2.0, 4: 1.5, 5: 1.2, 6: 1.0 };
const FEE_TARGETS = [...Array.from({ length: 25 }, (_, i) => i + 1), 144, 504, 1008];
const TXID = /^[0-9a-f]{64}$/;

class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

function status(meta: BcoinMeta): Record<string, unknown> {
  if (meta.height < 0 || !meta.block) return { confirmed: false };
  return { confirmed: true, block_height: meta.height, block_hash: revHex(meta.block), block_time: meta.time };
}

function outputJson(o: { script: { toRaw(): Buffer }; value: number }): Record<string, unknown> {
  const script = o.script.toRaw();
  const address = addressOf(script);
  return { scriptpubkey: script.toString('hex'), ...(address ? { scriptpubkey_address: address } : {}), value: o.value };
}

async function meta(node: RegtestNode, txid: string): Promise<BcoinMeta> {
  const m = await metaOrNull(node, txid);
  if (!m) throw new HttpError(404, 'Transaction not found');
  return m;
}

async function metaOrNull(node: RegtestNode, txid: string): Promise<BcoinMeta | null> {
  if (!TXID.test(txid)) throw new HttpError(400, 'Invalid hex string');
  return node.node.getMeta(revHex(txid));
}

async function txJson(node: RegtestNode, m: BcoinMeta): Promise<Record<string, unknown>> {
  const view = await node.node.getMetaView(m);
  const tx = m.tx;
  let inValue = 0;
  const vin = tx.inputs.map((input) => {
    const coinbase = input.isCoinbase();
    const prev = coinbase ? null : view.getOutputFor(input);
    inValue += prev?.value ?? 0;
    return {
      txid: revHex(input.prevout.hash),
      vout: input.prevout.index,
      prevout: prev ? outputJson(prev) : null,
      scriptsig: input.script.toRaw().toString('hex'),
      witness: input.witness.items.map((w) => w.toString('hex')),
      is_coinbase: coinbase,
      sequence: input.sequence,
    };
  });
  const outValue = tx.outputs.reduce((s, o) => s + o.value, 0);
  return {
    txid: tx.txid(),
    version: tx.version,
    locktime: tx.locktime,
    vin,
    vout: tx.outputs.map(outputJson),
    size: tx.getSize(),
    weight: tx.getWeight(),
    fee: tx.isCoinbase() ? 0 : inValue - outValue,
    status: status(m),
  };
}

/**
 * Esplora's outspend: the transaction (mempool or chain) spending output `vout`, found through
 * the output's address index. Like electrs, `{spent:false}` for a transaction it does not know.
 */
async function outspend(node: RegtestNode, txid: string, vout: number): Promise<Record<string, unknown>> {
  const parent = await metaOrNull(node, txid);
  if (!parent) return { spent: false };
  const output = parent.tx.outputs[vout];
  if (!output) throw new HttpError(400, 'Invalid output index');
  const address = output.script.getAddress();
  if (!address) return { spent: false };
  const hash = revHex(txid);
  for (const m of await node.metasOf(address)) {
    const index = m.tx.inputs.findIndex((i) => i.prevout.hash === hash && i.prevout.index === vout);
    if (index >= 0) return { spent: true, txid: m.tx.txid(), vin: index, status: status(m) };
  }
  return { spent: false };
}

/**
 * Esplora's `/address/:a/utxo` items. The status comes from the coin's own height and one
 * chain entry per distinct height: a transaction lookup per coin took bcoin ~20 s for an
 * address with 2,000 coins.
 */
async function utxoJson(node: RegtestNode, coins: BcoinCoin[]): Promise<Record<string, unknown>[]> {
  const heights = [...new Set(coins.filter((c) => c.height >= 0).map((c) => c.height))];
  const entries = new Map(await Promise.all(heights.map(async (h) => [h, await node.node.chain.getEntryByHeight(h)] as const)));
  return coins.map((c) => {
    const entry = c.height >= 0 ? entries.get(c.height) : null;
    const confirmed = entry ? { confirmed: true, block_height: entry.height, block_hash: revHex(entry.hash), block_time: entry.time } : { confirmed: false };
    return { txid: c.txid(), vout: c.index, status: confirmed, value: c.value };
  });
}

async function addressStats(node: RegtestNode, address: string): Promise<Record<string, unknown>> {
  const a = node.toBcoinAddress(address);
  if (!a) throw new HttpError(400, 'Invalid Bitcoin address');
  const blank = () => ({ funded_txo_count: 0, funded_txo_sum: 0, spent_txo_count: 0, spent_txo_sum: 0, tx_count: 0 });
  const chain = blank();
  const mempool = blank();
  for (const m of await node.metasOf(a.addr)) {
    const stats = m.height >= 0 ? chain : mempool;
    const view = await node.node.getMetaView(m);
    stats.tx_count++;
    for (const o of m.tx.outputs) {
      if (o.script.toRaw().equals(a.script)) {
        stats.funded_txo_count++;
        stats.funded_txo_sum += o.value;
      }
    }
    for (const i of m.tx.inputs) {
      const prev = i.isCoinbase() ? null : view.getOutputFor(i);
      if (prev && prev.script.toRaw().equals(a.script)) {
        stats.spent_txo_count++;
        stats.spent_txo_sum += prev.value;
      }
    }
  }
  return { address, chain_stats: chain, mempool_stats: mempool };
}

/** A block by hash as bcoin's `getblock` RPC shows it (its transactions as txids); 404 as Esplora for one it does not have. */
async function blockInfo(node: RegtestNode, hash: string): Promise<{ hash: string; height: number; previousblockhash?: string; time: number; tx: string[] }> {
  const r = await node.node.rpc.call({ method: 'getblock', params: [hash, true, false] }, []);
  if (r.error || !r.result) throw new HttpError(404, 'Block not found');
  return r.result as { hash: string; height: number; previousblockhash?: string; time: number; tx: string[] };
}

async function route(node: RegtestNode, method: string, path: string, body: string): Promise<{ status?: number; json?: unknown; text?: string }> {
  let m: RegExpExecArray | null;
  if (method === 'GET' && path === '/blocks/tip/height') return { text: String(node.height) };
  if (method === 'GET' && (m = /^\/block-height\/(\d+)$/.exec(path))) {
    const h = Number(m[1]);
    const hash = h <= node.height ? await node.node.chain.getHash(h) : null;
    if (!hash) throw new HttpError(404, 'Block not found');
    return { text: revHex(hash) };
  }
  if (method === 'GET' && path === '/blocks/tip/hash') return { text: await node.blockHash(node.height) };
  if (method === 'GET' && (m = /^\/block\/([0-9a-f]{64})$/.exec(path))) {
    const b = await blockInfo(node, m[1] as string);
    return { json: { id: b.hash, height: b.height, previousblockhash: b.previousblockhash ?? null, timestamp: b.time, tx_count: b.tx.length } };
  }
  if (method === 'GET' && (m = /^\/block\/([0-9a-f]{64})\/txs\/(\d+)$/.exec(path))) {
    // Esplora pages a block's transactions 25 at a time, each with its inputs' prevouts.
    const b = await blockInfo(node, m[1] as string);
    const page = b.tx.slice(Number(m[2]), Number(m[2]) + 25);
    return { json: await Promise.all(page.map(async (txid) => txJson(node, await meta(node, txid)))) };
  }
  if (method === 'GET' && (m = /^\/address\/([^/]+)\/utxo$/.exec(path))) {
    const address = decodeURIComponent(m[1] as string);
    if (!node.toBcoinAddress(address)) throw new HttpError(400, 'Invalid Bitcoin address');
    return { json: await utxoJson(node, await node.coins(address)) };
  }
  if (method === 'GET' && (m = /^\/address\/([^/]+)$/.exec(path))) return { json: await addressStats(node, decodeURIComponent(m[1] as string)) };
  if (method === 'GET' && (m = /^\/tx\/([^/]+)$/.exec(path))) return { json: await txJson(node, await meta(node, m[1] as string)) };
  if (method === 'GET' && (m = /^\/tx\/([^/]+)\/status$/.exec(path))) {
    // electrs looks only for a confirming block: a transaction it does not know is "unconfirmed" too.
    const found = await metaOrNull(node, m[1] as string);
    return { json: found ? status(found) : { confirmed: false } };
  }
  if (method === 'GET' && (m = /^\/tx\/([^/]+)\/outspend\/(\d+)$/.exec(path))) return { json: await outspend(node, m[1] as string, Number(m[2])) };
  if (method === 'GET' && (m = /^\/tx\/([^/]+)\/outspends$/.exec(path))) {
    const txid = m[1] as string;
    const { tx } = await meta(node, txid);
    return { json: await Promise.all(tx.outputs.map((_, vout) => outspend(node, txid, vout))) };
  }
  if (method === 'GET' && (m = /^\/tx\/([^/]+)\/hex$/.exec(path))) return { text: (await meta(node, m[1] as string)).tx.toRaw().toString('hex') };
  if (method === 'GET' && path === '/fee-estimates') {
    const table: Record<string, number> = {};
    for (const t of FEE_TARGETS) {
      let satPerKb = 0;
      try {
        satPerKb = node.node.fees.estimateFee(t, true);
      } catch {
        // bcoin estimates at most 25 blocks ahead; longer targets take the default table.
      }
      table[String(t)] = satPerKb > 0 ? satPerKb / 1000 : (DEFAULT_FEES[t] ?? 1.0);
    }
    return { json: table };
  }
  if (method === 'POST' && path === '/tx') {
    try {
      return { text: await node.submit(body.trim()) };
    } catch (e) {
      if (!(e instanceof NodeRejection)) throw e;
      throw new HttpError(400, `sendrawtransaction RPC error: ${JSON.stringify({ code: e.code, message: e.reason })}`);
    }
  }
  if (method === 'POST' && path === '/dev/mine') {
    const req = JSON.parse(body || '{}') as { blocks?: number; address?: string };
    const blocks = req.blocks ?? 1;
    if (!Number.isInteger(blocks) || blocks < 1 || blocks > 1000) throw new HttpError(400, 'blocks must be an integer 1..1000');
    if (req.address !== undefined && !node.toBcoinAddress(req.address)) throw new HttpError(400, 'Invalid Bitcoin address');
    return { json: { blocks: await node.mine(blocks, req.address), height: node.height } };
  }
  if (method === 'POST' && path === '/dev/faucet') {
    const req = JSON.parse(body || '{}') as { address?: string; amountSats?: number | string };
    if (typeof req.address !== 'string' || !node.toBcoinAddress(req.address)) throw new HttpError(400, 'Invalid Bitcoin address');
    const sats = BigInt(req.amountSats ?? 0);
    if (sats <= 0n) throw new HttpError(400, 'amountSats must be a positive integer');
    return { json: { txid: await node.faucet(req.address, sats) } };
  }
  throw new HttpError(404, 'Not Found');
}

export function esploraHandler(node: RegtestNode): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const path = new URL(req.url ?? '/', 'http://localhost').pathname.replace(/\/+$/, '') || '/';
      route(node, req.method ?? 'GET', path, Buffer.concat(chunks).toString('utf8'))
        .then((r) => {
          const isJson = r.json !== undefined;
          res.writeHead(r.status ?? 200, { 'content-type': isJson ? 'application/json' : 'text/plain' });
          res.end(isJson ? JSON.stringify(r.json) : r.text);
        })
        .catch((e: unknown) => {
          const code = e instanceof HttpError ? e.status : e instanceof SyntaxError ? 400 : 500;
          res.writeHead(code, { 'content-type': 'text/plain' });
          res.end((e as Error).message);
        });
    });
  };
}
