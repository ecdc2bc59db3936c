import { freePort } from '../free-port.js';
import { address as baddress, networks } from 'bitcoinjs-lib';
import { loadBcoin, revHex, type Bcoin, type BcoinAddress, type BcoinCoin, type BcoinFullNode, type BcoinKeyRing, type BcoinVerifyError } from './bcoin.js';

const network = networks.regtest;
/** bcoin's regtest activates SegWit by BIP9 signalling: the state turns ACTIVE at height 432. */
const SEGWIT_ACTIVE_HEIGHT = 432;
const COINBASE_MATURITY = 100;

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
    const coins = await this.node.getCoinsByAddress([a.addr]);
    return coins.filter((c) => c.script.toRaw().equals(a.script));
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
      const missing = await this.node.mempool.addTX(tx);
      if (missing && missing.length) throw new NodeRejection(-25, 'bad-txns-inputs-missingorspent');
    } catch (e) {
      if (e instanceof NodeRejection) throw e;
      const v = e as BcoinVerifyError;
      if (v.type !== 'VerifyError') throw e;
      // bcoin's reasons are Core's; only "already mined" is worded differently.
      if (v.reason === 'txn-already-known') throw new NodeRejection(-27, 'Transaction already in block chain');
      throw new NodeRejection(-26, v.reason);
    }
    return tx.txid();
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

  async genesisHash(): Promise<string> {
    return revHex((await this.node.chain.getHash(0)) as string);
  }

  async stop(): Promise<void> {
    await this.node.close();
  }
}
