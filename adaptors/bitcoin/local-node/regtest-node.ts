import { freePort } from '../../../src/dev/free-port.js';
import { address as baddress, networks } from 'bitcoinjs-lib';
import {
  loadBcoin,
  revHex,
  type Bcoin,
  type BcoinAddress,
  type BcoinCoin,
  type BcoinFullNode,
  type BcoinKeyRing,
  type BcoinMeta,
  type BcoinMempoolEntry,
  type BcoinTx,
  type BcoinVerifyError,
} from './bcoin.js';

const network = networks.regtest;
/** bcoin's regtest activates SegWit by BIP9 signalling: the state turns ACTIVE at height 432. */
const SEGWIT_ACTIVE_HEIGHT = 432;
const COINBASE_MATURITY = 100;
/** Bitcoin Core's default -incrementalrelayfee, sat/vB (BIP125 rule 4). */
const INCREMENTAL_RELAY_SAT_PER_VB = 1;

/** A refusal in Bitcoin Core's terms (RPC code and message), as Esplora relays it. */
export class NodeRejection extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
  ) {
    super(reason);
  }
}

/** Output script of a regtest address (any type, Taproot included), or undefined. */
export function scriptOf(address: string): Buffer | undefined {
  try {
    const b58 = baddress.fromBase58Check(address);
    if (b58.version === network.pubKeyHash) return Buffer.concat([Buffer.from([0x76, 0xa9, 0x14]), b58.hash, Buffer.from([0x88, 0xac])]);
    if (b58.version === network.scriptHash) return Buffer.concat([Buffer.from([0xa9, 0x14]), b58.hash, Buffer.from([0x87])]);
    return undefined;
  } catch {
    // not base58: try bech32
  }
  try {
    const seg = baddress.fromBech32(address);
    if (seg.prefix !== network.bech32) return undefined;
    return Buffer.concat([Buffer.from([seg.version ? 0x50 + seg.version : 0, seg.data.length]), seg.data]);
  } catch {
    return undefined;
  }
}

/** Regtest address of an output script, the way Esplora names `scriptpubkey_address`. */
export function addressOf(script: Buffer): string | undefined {
  if (script.length === 25 && script[0] === 0x76 && script[1] === 0xa9 && script[23] === 0x88) {
    return baddress.toBase58Check(script.subarray(3, 23), network.pubKeyHash);
  }
  if (script.length === 23 && script[0] === 0xa9 && script[22] === 0x87) return baddress.toBase58Check(script.subarray(2, 22), network.scriptHash);
  const v = script[0];
  if (v !== undefined && (v === 0 || (v >= 0x51 && v <= 0x60)) && script[1] === script.length - 2 && script.length >= 4) {
    return baddress.toBech32(script.subarray(2), v === 0 ? 0 : v - 0x50, network.bech32);
  }
  return undefined;
}

/**
 * Each record once, the confirmed one where there are two. bcoin's `getCoinsByAddress` and
 * `getMetaByAddress` read the mempool, then await the chain: a block connected in between gives
 * its transactions, and their coins, twice (a listing that offered one coin twice let a spender
 * count it twice). Esplora and Blockset list each once.
 */
export function onceEach<T>(items: readonly T[], id: (item: T) => string, height: (item: T) => number): T[] {
  const byId = new Map<string, T>();
  for (const item of items) {
    const seen = byId.get(id(item));
    if (seen === undefined || (height(seen) < 0 && height(item) >= 0)) byId.set(id(item), item);
  }
  return [...byId.values()];
}

export class RegtestNode {
  private constructor(
    readonly bcoin: Bcoin,
    readonly node: BcoinFullNode,
    private readonly faucetRing: BcoinKeyRing,
  ) {}

  static async start(): Promise<RegtestNode> {
    const bcoin = loadBcoin();
    // Match Bitcoin Core's regtest address prefixes (bcoin ships rb / 0x3c / 0x26), so
    // bitcoinjs `networks.regtest` addresses mean the same thing to both. Global to bcoin.
    Object.assign(bcoin.Network.get('regtest').addressPrefix, { bech32: 'bcrt', pubkeyhash: 0x6f, scripthash: 0xc4 });
    const node = new bcoin.FullNode({
      network: 'regtest',
      memory: true,
      workers: false,
      listen: false,
      indexTX: true,
      indexAddress: true,
      logLevel: 'none',
      replaceByFee: true,
      // bcoin always serves its own HTTP API; a fixed port would collide between nodes.
      httpHost: '127.0.0.1',
      httpPort: await freePort(),
    });
    await node.open();
    const ring = bcoin.KeyRing.generate();
    ring.witness = true;
    const self = new RegtestNode(bcoin, node, ring);
    await self.mine(SEGWIT_ACTIVE_HEIGHT);
    return self;
  }

  get height(): number {
    return this.node.chain.height;
  }

  /** bcoin's own Address for any regtest address (parsed through its script, so Taproot works). */
  toBcoinAddress(address: string): { addr: BcoinAddress; script: Buffer } | undefined {
    const script = scriptOf(address);
    const addr = script && this.bcoin.Script.fromRaw(script).getAddress();
    return script && addr ? { addr, script } : undefined;
  }

  /** Coins of an address, chain and mempool, minus those a mempool transaction spends (as Esplora). */
  async coins(address: string): Promise<BcoinCoin[]> {
    const a = this.toBcoinAddress(address);
    if (!a) return [];
    const coins = onceEach(
      await this.node.getCoinsByAddress([a.addr]),
      (c) => `${c.txid()}:${c.index}`,
      (c) => c.height,
    );
    return coins.filter((c) => c.script.toRaw().equals(a.script));
  }

  /** The transactions of an address, mempool and chain, each once (onceEach). */
  async metasOf(addr: BcoinAddress): Promise<BcoinMeta[]> {
    return onceEach(
      await this.node.getMetaByAddress([addr]),
      (m) => m.tx.txid(),
      (m) => m.height,
    );
  }

  /** The best chain's block hash at `height`, as RPC shows it. */
  async blockHash(height: number): Promise<string> {
    const r = await this.node.rpc.call({ method: 'getblockhash', params: [height] }, []);
    if (r.error) throw new Error(`getblockhash: ${r.error.message}`);
    return r.result as string;
  }

  async mine(blocks: number, address?: string): Promise<string[]> {
    const to = address ?? this.faucetRing.getAddress().toString('regtest');
    const r = await this.node.rpc.call({ method: 'generatetoaddress', params: [blocks, to] }, []);
    if (r.error) throw new Error(`generatetoaddress: ${r.error.message}`);
    return r.result as string[];
  }

  /** Hands a raw transaction to the mempool; bcoin's RPC would answer a txid even for a refusal. */
  async submit(hex: string): Promise<string> {
    let tx;
    try {
      tx = this.bcoin.TX.fromRaw(Buffer.from(hex, 'hex'));
    } catch {
      throw new NodeRejection(-22, 'TX decode failed');
    }
    try {
      await this.addToMempool(tx);
    } catch (e) {
      if (e instanceof NodeRejection) throw e;
      const v = e as BcoinVerifyError;
      if (v.type !== 'VerifyError') throw e;
      if (v.reason === 'bad-txns-inputs-spent') {
        await this.replaceByFee(tx);
        return tx.txid();
      }
      // bcoin's reasons are Core's; only "already mined" is worded differently.
      if (v.reason === 'txn-already-known') throw new NodeRejection(-27, 'Transaction already in block chain');
      throw new NodeRejection(-26, v.reason);
    }
    return tx.txid();
  }

  private async addToMempool(tx: BcoinTx): Promise<void> {
    const missing = await this.node.mempool.addTX(tx);
    if (missing && missing.length) throw new NodeRejection(-25, 'bad-txns-inputs-missingorspent');
  }

  /**
   * BIP125 replacement as Bitcoin Core applies it, which bcoin 1.0.2 lacks (it refuses every
   * double spend): every conflicting mempool transaction signals RBF (rule 1), the new fee
   * pays at least the conflicts' fees (rule 3) plus the incremental relay fee for its own size
   * (rule 4), and its fee rate beats each conflict's. Refusals carry Core's texts. The
   * conflicts (and their descendants) leave the mempool only once the replacement is in.
   */
  private async replaceByFee(tx: BcoinTx): Promise<void> {
    const mempool = this.node.mempool;
    const txid = tx.txid();
    const conflicts = new Map<string, BcoinMempoolEntry>();
    for (const input of tx.inputs) {
      const entry = mempool.getSpent(input.prevout.hash, input.prevout.index);
      if (entry) conflicts.set(entry.tx.txid(), entry);
    }
    if (conflicts.size === 0) throw new NodeRejection(-25, 'bad-txns-inputs-missingorspent');
    // BIP125 signalling by sequence; bcoin's own isRBF() refuses every version-2 transaction.
    const signals = (t: BcoinTx) => t.inputs.some((i) => i.sequence < 0xfffffffe);
    for (const [id, entry] of conflicts) if (!signals(entry.tx)) throw new NodeRejection(-26, `txn-mempool-conflict (${id} does not signal replaceability)`);
    const fee = tx.getFee(await mempool.getCoinView(tx));
    const vsize = tx.getVirtualSize();
    const oldFees = [...conflicts.values()].reduce((s, e) => s + e.fee, 0);
    for (const [id, e] of conflicts) {
      if (fee * e.size <= e.fee * vsize) {
        throw new NodeRejection(
          -26,
          `insufficient fee, rejecting replacement ${txid}; new feerate ${(fee / vsize).toFixed(2)} sat/vB <= old feerate ${(e.fee / e.size).toFixed(2)} sat/vB of ${id}`,
        );
      }
    }
    if (fee < oldFees) throw new NodeRejection(-26, `insufficient fee, rejecting replacement ${txid}, less fees than conflicting txs; ${fee} < ${oldFees}`);
    if (fee - oldFees < INCREMENTAL_RELAY_SAT_PER_VB * vsize) {
      throw new NodeRejection(
        -26,
        `insufficient fee, rejecting replacement ${txid}, not enough additional fees to relay; ${fee - oldFees} < ${INCREMENTAL_RELAY_SAT_PER_VB * vsize}`,
      );
    }
    const evicted = [...conflicts.values()];
    for (const e of evicted) mempool.evictEntry(e);
    try {
      await this.addToMempool(tx);
    } catch (e) {
      for (const old of evicted) await mempool.addTX(old.tx).catch(() => undefined);
      const v = e as BcoinVerifyError;
      throw v.type === 'VerifyError' ? new NodeRejection(-26, v.reason) : e;
    }
  }

  /**
   * `invalidateblock`: bcoin resets its chain to the block's parent and empties its mempool
   * (its transactions are gone, as after a restart) but leaves the mempool's tip behind, which
   * would refuse every later block; the tip is put back in line here.
   */
  async invalidate(blockHash: string): Promise<void> {
    const r = await this.node.rpc.call({ method: 'invalidateblock', params: [blockHash] }, []);
    if (r.error) throw new Error(`invalidateblock: ${r.error.message}`);
    this.node.mempool.tip = this.node.chain.tip.hash;
  }

  /** Pays `sats` to `address` from mined coins, then mines a block so the payment is confirmed. */
  async faucet(address: string, sats: bigint): Promise<string> {
    const to = this.toBcoinAddress(address);
    if (!to) throw new Error(`not a regtest address: ${address}`);
    const own = this.faucetRing.getAddress().toString('regtest');
    const spendHeight = this.height + 1;
    const coins = (await this.coins(own)).filter((c) => !c.coinbase || (c.height >= 0 && spendHeight - c.height >= COINBASE_MATURITY));
    const mtx = new this.bcoin.MTX();
    mtx.addOutput(this.bcoin.Script.fromRaw(to.script), Number(sats));
    await mtx.fund(coins, { changeAddress: this.faucetRing.getAddress(), rate: 2_000 });
    mtx.sign(this.faucetRing);
    const txid = await this.submit(mtx.toTX().toRaw().toString('hex'));
    await this.mine(1);
    return txid;
  }

  /**
   * Pays `count` outputs of `sats` each to `address` in one transaction from mined coins, then
   * mines a block: a vault with thousands of coins without thousands of blocks. Up to 3,000
   * outputs keep the transaction under the standard 100,000 vbytes.
   */
  async fanOut(address: string, count: number, sats: bigint): Promise<string> {
    const to = this.toBcoinAddress(address);
    if (!to) throw new Error(`not a regtest address: ${address}`);
    if (!Number.isInteger(count) || count < 1 || count > 3_000) throw new Error('count must be an integer 1..3000');
    const own = this.faucetRing.getAddress().toString('regtest');
    const spendHeight = this.height + 1;
    const coins = (await this.coins(own)).filter((c) => !c.coinbase || (c.height >= 0 && spendHeight - c.height >= COINBASE_MATURITY));
    const mtx = new this.bcoin.MTX();
    const script = this.bcoin.Script.fromRaw(to.script);
    for (let i = 0; i < count; i++) mtx.addOutput(script, Number(sats));
    await mtx.fund(coins, { changeAddress: this.faucetRing.getAddress(), rate: 2_000 });
    mtx.sign(this.faucetRing);
    const txid = await this.submit(mtx.toTX().toRaw().toString('hex'));
    await this.mine(1);
    return txid;
  }

  async genesisHash(): Promise<string> {
    return revHex((await this.node.chain.getHash(0)) as string);
  }

  async stop(): Promise<void> {
    await this.node.close();
  }
}
