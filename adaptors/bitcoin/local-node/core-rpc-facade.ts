import type { IncomingMessage, ServerResponse } from 'node:http';
import { revHex } from './bcoin.js';
import { btc, coreJson, scriptJson, txJson } from './core-rpc-json.js';
import { NodeRejection, type RegtestNode } from './regtest-node.js';

/**
 * Request handler speaking Bitcoin Core's JSON-RPC (legacy 1.0 replies `{result, error, id}`,
 * batches as arrays) over a bcoin regtest node, for the Bitcoin adaptor's Core back end
 * (`network/core-rpc.ts`). DEVELOPMENT FACADE, NOT PRODUCTION: no auth (any credentials pass),
 * no limits, no wallet.
 *
 * Passed through to bcoin's own RPC, which answers them as Core does: `getblockchaininfo`,
 * `getblockcount` and any method not below (`generatetoaddress`, `getrawmempool`…; bcoin's
 * "Method not found: x." becomes Core's -32601 "Method not found").
 *
 * Answered here from the node's in-process state, in Core's shapes (core-rpc-json.ts: amounts
 * as JSON numbers in BTC with 8 decimals) and with Core's codes and texts, because bcoin lacks
 * them or answers otherwise:
 * - `getblockhash` (Core's text without bcoin's trailing period);
 * - `getblock hash 0|1|2|3` (bcoin takes booleans; Core's integer verbosity, 2 with each
 *   transaction's `fee`, 3 with each input's `prevout`, both from the block's undo data, so a
 *   block of a competing chain is answered at 3 as at 2 without them, `confirmations` -1).
 *   Unlike Core, bcoin's `invalidateblock` forgets the blocks it takes away: -5 for them;
 * - `getrawtransaction txid 0|1|2` (2: `fee` and `prevout`), -5 for an unknown transaction;
 * - `gettxout txid n include_mempool`: null for an output a mempool transaction spends (bcoin
 *   returns it), chain-only without the mempool;
 * - `scantxoutset start [addr(...)]` over the chain's UTXO set through bcoin's address index:
 *   confirmed coins only, including those a mempool transaction spends, as Core (no `desc`);
 *   `status` null and `abort` false, since a scan here is never in progress;
 * - `getindexinfo [txindex]`: `{txindex:{synced:true,best_block_height}}` (bcoin indexes
 *   transactions), `{}` for any other index;
 * - `estimatesmartfee n`: bcoin's estimate (at least Core's 1 sat/vB relay floor) as `feerate`
 *   in BTC/kvB, or Core's `errors` when it has none (always on a fresh chain);
 * - `sendrawtransaction hex`: through the node's mempool with Core's refusals (regtest-node.ts,
 *   BIP125 replacement included), the txid again for a transaction already in the mempool,
 *   -27 for one already in the UTXO set (bcoin's would answer a txid for any bytes). Core's
 *   `maxfeerate` check is not applied;
 * - `getmempoolentry txid`: Core's -5 "Transaction not in mempool"; bcoin's entry (its own
 *   fields) for one it holds;
 * - `invalidateblock` through the node, which keeps bcoin's mempool in line.
 */

const RPC_MISC_ERROR = -1;
const RPC_TYPE_ERROR = -3;
const RPC_INVALID_ADDRESS_OR_KEY = -5;
const RPC_INVALID_PARAMETER = -8;
const RPC_DESERIALIZATION_ERROR = -22;
const RPC_VERIFY_ALREADY_IN_CHAIN = -27;
const RPC_INVALID_REQUEST = -32600;
const RPC_METHOD_NOT_FOUND = -32601;
const RPC_PARSE_ERROR = -32700;

/** Core's highest estimatesmartfee target (the long horizon of its fee estimator). */
const MAX_CONF_TARGET = 1008;
/** Core's default -minrelaytxfee, sat/kvB: the floor of every estimatesmartfee answer. */
const MIN_RELAY_SAT_PER_KVB = 1000;

class RpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

type Params = unknown[];
type Method = (node: RegtestNode, params: Params) => Promise<unknown>;

const jsonType = (v: unknown): string => (v === null || v === undefined ? 'null' : Array.isArray(v) ? 'array' : typeof v === 'boolean' ? 'bool' : typeof v);
const typeError = (v: unknown, expected: string) => new RpcError(RPC_TYPE_ERROR, `JSON value of type ${jsonType(v)} is not of expected type ${expected}`);

/** A txid or block hash as Core parses one (ParseHashV), in display byte order. */
function hashParam(v: unknown, name: string): string {
  if (typeof v !== 'string') throw typeError(v, 'string');
  if (v.length !== 64) throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be of length 64 (not ${v.length}, for '${v}')`);
  if (!/^[0-9a-fA-F]{64}$/.test(v)) throw new RpcError(RPC_INVALID_PARAMETER, `${name} must be hexadecimal string (not '${v}')`);
  return v.toLowerCase();
}

function intParam(v: unknown): number {
  if (typeof v !== 'number') throw typeError(v, 'number');
  if (!Number.isInteger(v)) throw new RpcError(RPC_TYPE_ERROR, 'JSON integer out of range');
  return v;
}

/** Core's verbosity: an integer, or a boolean as 0/1 (the older `verbose` flag). */
function verbosityParam(v: unknown, fallback: number): number {
  if (v === undefined || v === null) return fallback;
  if (typeof v === 'boolean') return v ? 1 : 0;
  return intParam(v);
}

async function getBlockHash(node: RegtestNode, [h]: Params): Promise<unknown> {
  const height = intParam(h);
  const hash = height >= 0 && height <= node.height ? await node.node.chain.getHash(height) : null;
  if (!hash) throw new RpcError(RPC_INVALID_PARAMETER, 'Block height out of range');
  return revHex(hash);
}

async function getBlock(node: RegtestNode, [h, v]: Params): Promise<unknown> {
  const hash = hashParam(h, 'blockhash');
  const verbosity = verbosityParam(v, 1);
  const chain = node.node.chain;
  const entry = await chain.getEntry(revHex(hash));
  const block = entry && (await chain.getBlock(entry.hash));
  if (!entry || !block) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Block not found');
  if (verbosity <= 0) return block.toRaw().toString('hex');
  // The header fields as bcoin's getblock writes them (Core's names), corrected below where they differ.
  const r = await node.node.rpc.call({ method: 'getblock', params: [hash, true, false] }, []);
  if (r.error) throw new RpcError(RPC_MISC_ERROR, r.error.message);
  const { coinbase: _bcoinOnly, tx: txids, bits, previousblockhash, nextblockhash, confirmations: _unchecked, ...header } = r.result as Record<string, unknown>;
  const main = await chain.isMainChain(entry);
  // Fees and prevouts come from the undo data, which only a block of the best chain has here.
  const view = verbosity >= 2 && main ? await chain.getBlockView(block) : undefined;
  return {
    ...header,
    confirmations: main ? chain.height - entry.height + 1 : -1,
    bits: (bits as number).toString(16).padStart(8, '0'),
    nTx: block.txs.length,
    ...(previousblockhash ? { previousblockhash } : {}),
    ...(main && nextblockhash ? { nextblockhash } : {}),
    tx: verbosity === 1 ? txids : block.txs.map((tx) => txJson(tx, view, verbosity >= 3)),
  };
}

async function getRawTransaction(node: RegtestNode, [t, v, blockhash]: Params): Promise<unknown> {
  const txid = hashParam(t, 'parameter 1');
  const verbosity = verbosityParam(v, 0);
  if (blockhash !== undefined && blockhash !== null)
    throw new RpcError(RPC_INVALID_PARAMETER, 'the blockhash argument is not answered by this development facade');
  const meta = await node.node.getMeta(revHex(txid));
  if (!meta) {
    const where = node.node.chain.options.indexTX
      ? 'No such mempool or blockchain transaction'
      : 'No such mempool transaction. Use -txindex or provide a block hash to enable blockchain transaction queries';
    throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `${where}. Use gettransaction for wallet transactions.`);
  }
  if (verbosity <= 0) return meta.tx.toRaw().toString('hex');
  const view = verbosity >= 2 ? await node.node.getMetaView(meta) : undefined;
  const json = txJson(meta.tx, view, verbosity >= 2);
  const entry = meta.block && meta.height >= 0 ? await node.node.chain.getEntry(meta.block) : null;
  if (!entry || !(await node.node.chain.isMainChain(entry))) return json;
  return { ...json, blockhash: revHex(entry.hash), confirmations: node.height - entry.height + 1, time: entry.time, blocktime: entry.time };
}

async function getTxOut(node: RegtestNode, [t, n, mempool]: Params): Promise<unknown> {
  const hash = revHex(hashParam(t, 'txid'));
  const index = intParam(n);
  if (mempool !== undefined && mempool !== null && typeof mempool !== 'boolean') throw typeError(mempool, 'bool');
  // With the mempool: null once a mempool transaction spends it (bcoin's own gettxout still shows it).
  const coin = mempool === false ? await node.node.chain.getCoin(hash, index) : await node.node.getCoin(hash, index);
  if (!coin) return null;
  return {
    bestblock: revHex(node.node.chain.tip.hash),
    confirmations: coin.height >= 0 ? node.height - coin.height + 1 : 0,
    value: btc(coin.value),
    scriptPubKey: scriptJson(coin.script.toRaw()),
    coinbase: coin.coinbase,
  };
}

/** The address inside `addr(<address>)` (an optional `#checksum` is not verified here). */
function addrDescriptor(node: RegtestNode, d: unknown): { address: string; parsed: NonNullable<ReturnType<RegtestNode['toBcoinAddress']>> } {
  const desc = typeof d === 'object' && d !== null && 'desc' in d ? (d as { desc: unknown }).desc : d;
  if (typeof desc !== 'string') throw new RpcError(RPC_INVALID_PARAMETER, 'Scan object needs to be either a string or an object');
  const m = /^addr\(([^)]*)\)(?:#[0-9a-z]{8})?$/.exec(desc);
  if (!m) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, `'${desc}': this development facade answers addr(<address>) descriptors only`);
  const address = m[1] as string;
  const parsed = node.toBcoinAddress(address);
  if (!parsed) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Address is not valid');
  return { address, parsed };
}

async function scanTxOutSet(node: RegtestNode, [action, objects]: Params): Promise<unknown> {
  if (action === 'status') return null;
  if (action === 'abort') return false;
  if (action !== 'start') throw new RpcError(RPC_INVALID_PARAMETER, `Invalid action '${String(action)}'`);
  if (!Array.isArray(objects)) throw new RpcError(RPC_MISC_ERROR, 'scanobjects argument is required for the start action');
  const chain = node.node.chain;
  const wanted = objects.map((o) => addrDescriptor(node, o));
  const height = node.height;
  const bestblock = revHex(chain.tip.hash);
  const coins = (await chain.getCoinsByAddress(wanted.map((w) => w.parsed.addr)))
    // bcoin's address index keys by hash: keep only outputs whose script is the one asked for.
    .filter((c) => wanted.some((w) => c.script.toRaw().equals(w.parsed.script)))
    .sort((a, b) => a.txid().localeCompare(b.txid()) || a.index - b.index);
  const hashes = new Map<number, string>();
  for (const h of new Set(coins.map((c) => c.height))) hashes.set(h, revHex((await chain.getHash(h)) as string));
  const total = coins.reduce((s, c) => s + BigInt(c.value), 0n);
  return {
    success: true,
    txouts: chain.db.state.coin,
    height,
    bestblock,
    unspents: coins.map((c) => ({
      txid: c.txid(),
      vout: c.index,
      scriptPubKey: c.script.toRaw().toString('hex'),
      amount: btc(c.value),
      coinbase: c.coinbase,
      height: c.height,
      blockhash: hashes.get(c.height),
    })),
    total_amount: btc(total),
  };
}

async function getIndexInfo(node: RegtestNode, [name]: Params): Promise<unknown> {
  if (name !== undefined && name !== null && typeof name !== 'string') throw typeError(name, 'string');
  const all: Record<string, unknown> = node.node.chain.options.indexTX ? { txindex: { synced: true, best_block_height: node.height } } : {};
  if (name === undefined || name === null) return all;
  return name in all ? { [name]: all[name] } : {};
}

async function estimateSmartFee(node: RegtestNode, [target, mode]: Params): Promise<unknown> {
  const blocks = intParam(target);
  if (blocks < 1 || blocks > MAX_CONF_TARGET) throw new RpcError(RPC_INVALID_PARAMETER, `Invalid conf_target, must be between 1 and ${MAX_CONF_TARGET}`);
  if (mode !== undefined && !['unset', 'economical', 'conservative'].includes(String(mode).toLowerCase())) {
    throw new RpcError(RPC_INVALID_PARAMETER, 'Invalid estimate_mode parameter, must be one of: "unset", "economical", "conservative"');
  }
  let satPerKvB = 0;
  try {
    satPerKvB = node.node.fees.estimateFee(blocks, true);
  } catch {
    // bcoin estimates at most 25 blocks ahead: past that it has no estimate, as on a fresh chain.
  }
  if (satPerKvB <= 0) return { errors: ['Insufficient data or no feerate found'], blocks: 0 };
  return { feerate: btc(Math.max(satPerKvB, MIN_RELAY_SAT_PER_KVB)), blocks };
}

async function sendRawTransaction(node: RegtestNode, [hex]: Params): Promise<unknown> {
  if (typeof hex !== 'string') throw typeError(hex, 'string');
  let tx;
  try {
    if (!/^(?:[0-9a-fA-F]{2})+$/.test(hex)) throw new Error('not hex');
    tx = node.bcoin.TX.fromRaw(Buffer.from(hex, 'hex'));
  } catch {
    throw new RpcError(RPC_DESERIALIZATION_ERROR, 'TX decode failed. Make sure the tx has at least one input.');
  }
  const txid = tx.txid();
  const hash = revHex(txid);
  // Core answers the txid for a transaction its mempool holds, and -27 for one whose outputs are in the UTXO set.
  if (node.node.mempool.has(hash)) return txid;
  for (let i = 0; i < tx.outputs.length; i++) {
    if (await node.node.chain.getCoin(hash, i)) throw new RpcError(RPC_VERIFY_ALREADY_IN_CHAIN, 'Transaction outputs already in utxo set');
  }
  try {
    return await node.submit(hex);
  } catch (e) {
    if (e instanceof NodeRejection) throw new RpcError(e.code, e.reason);
    throw e;
  }
}

async function getMempoolEntry(node: RegtestNode, [t]: Params): Promise<unknown> {
  const txid = hashParam(t, 'txid');
  if (!node.node.mempool.has(revHex(txid))) throw new RpcError(RPC_INVALID_ADDRESS_OR_KEY, 'Transaction not in mempool');
  const r = await node.node.rpc.call({ method: 'getmempoolentry', params: [txid] }, []);
  if (r.error) throw new RpcError(RPC_MISC_ERROR, r.error.message);
  return r.result;
}

async function invalidateBlock(node: RegtestNode, [h]: Params): Promise<unknown> {
  await node.invalidate(hashParam(h, 'blockhash'));
  return null;
}

const METHODS: Record<string, Method> = {
  getblockhash: getBlockHash,
  getblock: getBlock,
  getrawtransaction: getRawTransaction,
  gettxout: getTxOut,
  scantxoutset: scanTxOutSet,
  getindexinfo: getIndexInfo,
  estimatesmartfee: estimateSmartFee,
  sendrawtransaction: sendRawTransaction,
  getmempoolentry: getMempoolEntry,
  invalidateblock: invalidateBlock,
};

interface Reply {
  result: unknown;
  error: { code: number; message: string } | null;
  id: unknown;
}

async function answer(node: RegtestNode, request: unknown): Promise<Reply> {
  if (typeof request !== 'object' || request === null || Array.isArray(request)) {
    return { result: null, error: { code: RPC_INVALID_REQUEST, message: 'Invalid Request object' }, id: null };
  }
  const { method, params = [], id = null } = request as { method?: unknown; params?: unknown; id?: unknown };
  try {
    if (typeof method !== 'string') throw new RpcError(RPC_INVALID_REQUEST, 'Method must be a string');
    if (!Array.isArray(params))
      throw new RpcError(RPC_INVALID_REQUEST, 'Params must be an array (named parameters are not answered by this development facade)');
    const own = METHODS[method];
    if (own) return { result: await own(node, params), error: null, id };
    const r = await node.node.rpc.call({ method, params }, []);
    if (!r.error) return { result: r.result, error: null, id };
    const e = r.error as { code?: number; message: string };
    if (e.code === RPC_METHOD_NOT_FOUND) throw new RpcError(RPC_METHOD_NOT_FOUND, 'Method not found');
    throw new RpcError(e.code ?? RPC_MISC_ERROR, e.message);
  } catch (e) {
    const err = e instanceof RpcError ? e : new RpcError(RPC_MISC_ERROR, (e as Error).message);
    return { result: null, error: { code: err.code, message: err.message }, id };
  }
}

/** Core's HTTP status for a single request's error (httprpc.cpp JSONErrorReply); a batch is always 200. */
const httpStatus = (code: number): number => (code === RPC_INVALID_REQUEST ? 400 : code === RPC_METHOD_NOT_FOUND ? 404 : 500);

export function coreRpcHandler(node: RegtestNode): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const reply = (status: number, body: unknown) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(`${coreJson(body)}\n`);
      };
      if (req.method !== 'POST') {
        res.writeHead(405, { 'content-type': 'text/plain' });
        res.end('JSONRPC server handles only POST requests');
        return;
      }
      let body: unknown;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
      } catch {
        reply(500, { result: null, error: { code: RPC_PARSE_ERROR, message: 'Parse error' }, id: null });
        return;
      }
      // A batch is answered in order, one call after the other, as Core does.
      const run = async () => {
        if (!Array.isArray(body)) {
          const r = await answer(node, body);
          reply(r.error ? httpStatus(r.error.code) : 200, r);
          return;
        }
        const out: Reply[] = [];
        for (const call of body) out.push(await answer(node, call));
        reply(200, out);
      };
      run().catch((e: unknown) => reply(500, { result: null, error: { code: RPC_MISC_ERROR, message: (e as Error).message }, id: null }));
    });
  };
}
