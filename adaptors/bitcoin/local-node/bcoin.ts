import { createRequire } from 'node:module';

/**
 * The slice of bcoin 1.0.2 (CommonJS, untyped) the regtest sandbox touches. Hashes are hex
 * strings in bcoin's internal (reversed) byte order; `revHex` turns them into txids.
 */
export interface BcoinScript {
  toRaw(): Buffer;
  getAddress(): BcoinAddress | null;
}
export interface BcoinAddress {
  toString(network?: string): string;
}
export interface BcoinOutput {
  script: BcoinScript;
  value: number;
}
export interface BcoinInput {
  prevout: { hash: string; index: number };
  script: BcoinScript;
  witness: { toItems?(): Buffer[]; items: Buffer[] };
  sequence: number;
  isCoinbase(): boolean;
}
export interface BcoinTx {
  txid(): string;
  wtxid(): string;
  version: number;
  locktime: number;
  inputs: BcoinInput[];
  outputs: BcoinOutput[];
  toRaw(): Buffer;
  getSize(): number;
  getWeight(): number;
  isCoinbase(): boolean;
  getVirtualSize(): number;
  getFee(view: unknown): number;
}
export interface BcoinMempoolEntry {
  tx: BcoinTx;
  fee: number;
  size: number;
}
export interface BcoinCoin {
  hash: string;
  index: number;
  value: number;
  height: number;
  coinbase: boolean;
  script: BcoinScript;
  txid(): string;
}
export interface BcoinMeta {
  tx: BcoinTx;
  height: number;
  block: string | null;
  time: number;
}
export interface BcoinView {
  getOutputFor(input: BcoinInput): BcoinOutput | null;
  getCoinFor(input: BcoinInput): BcoinCoin | null;
}
/** A chain entry (block header and its place in the chain); `hash` and `prevBlock` in internal byte order. */
export interface BcoinEntry {
  hash: string;
  height: number;
  time: number;
  prevBlock: string;
}
export interface BcoinBlock {
  txs: BcoinTx[];
  toRaw(): Buffer;
}
export interface BcoinVerifyError extends Error {
  type: 'VerifyError';
  code: string;
  reason: string;
}
export interface BcoinFullNode {
  open(): Promise<void>;
  close(): Promise<void>;
  chain: {
    height: number;
    tip: { hash: string };
    options: { indexTX: boolean };
    db: { state: { coin: number } };
    getHash(height: number): Promise<string | null>;
    getEntryByHeight(height: number): Promise<BcoinEntry | null>;
    getEntry(hash: string): Promise<BcoinEntry | null>;
    isMainChain(entry: BcoinEntry): Promise<boolean>;
    getNextHash(hash: string): Promise<string | null>;
    getBlock(hash: string): Promise<BcoinBlock | null>;
    /** The coins a block spent (from its undo data), for a block of the best chain. */
    getBlockView(block: BcoinBlock): Promise<BcoinView>;
    /** A coin of the chain's UTXO set, whatever the mempool does with it. */
    getCoin(hash: string, index: number): Promise<BcoinCoin | null>;
    /** Coins of the chain's UTXO set paying the addresses (the address index); mempool ignored. */
    getCoinsByAddress(addrs: BcoinAddress[]): Promise<BcoinCoin[]>;
  };
  mempool: {
    tip: string;
    has(hash: string): boolean;
    addTX(tx: BcoinTx): Promise<string[] | null>;
    getSpent(hash: string, index: number): BcoinMempoolEntry | null;
    getEntry(hash: string): BcoinMempoolEntry | null;
    getCoinView(tx: BcoinTx): Promise<unknown>;
    evictEntry(entry: BcoinMempoolEntry): void;
  };
  fees: { estimateFee(blocks: number, smart: boolean): number };
  rpc: { call(req: { method: string; params: unknown[] }, batch: unknown[]): Promise<{ result: unknown; error: { message: string } | null }> };
  getCoinsByAddress(addrs: BcoinAddress[]): Promise<BcoinCoin[]>;
  /** A coin from the mempool or the chain, null when a mempool transaction spends it. */
  getCoin(hash: string, index: number): Promise<BcoinCoin | null>;
  getMetaByAddress(addrs: BcoinAddress[]): Promise<BcoinMeta[]>;
  getMeta(hash: string): Promise<BcoinMeta | null>;
  getMetaView(meta: BcoinMeta): Promise<BcoinView>;
}
export interface BcoinKeyRing {
  witness: boolean;
  getAddress(): BcoinAddress;
}
export interface BcoinMtx {
  addOutput(script: BcoinScript, value: number): void;
  fund(coins: BcoinCoin[], options: { changeAddress: BcoinAddress; rate: number }): Promise<void>;
  sign(ring: BcoinKeyRing): number;
  toTX(): BcoinTx;
}
export interface Bcoin {
  FullNode: new (options: Record<string, unknown>) => BcoinFullNode;
  Network: { get(name: string): { addressPrefix: Record<string, number | string> } };
  KeyRing: { generate(): BcoinKeyRing };
  MTX: new () => BcoinMtx;
  TX: { fromRaw(raw: Buffer): BcoinTx };
  Script: { fromRaw(raw: Buffer): BcoinScript };
}

export function loadBcoin(): Bcoin {
  // bcoin picks its leveldb backend at load time; only the pure-JS one installs everywhere.
  process.env.NODE_BACKEND ??= 'js';
  // Its file layer (bfile) reads fs.F_OK when it loads, which Node 24 deprecates (DEP0176):
  // `npm start` printed that warning on stderr. It is dropped while bcoin and its node load
  // (FullNode loads lazily, on first use); every other warning goes out as it came.
  const emit = process.emitWarning;
  process.emitWarning = ((warning: string | Error, ...rest: unknown[]) => {
    const code = typeof rest[0] === 'object' && rest[0] !== null ? (rest[0] as { code?: unknown }).code : rest[1];
    if (code !== 'DEP0176') (emit as (...a: unknown[]) => void).call(process, warning, ...rest);
  }) as typeof process.emitWarning;
  try {
    const bcoin = createRequire(import.meta.url)('bcoin') as Bcoin;
    void bcoin.FullNode;
    return bcoin;
  } finally {
    process.emitWarning = emit;
  }
}

export const revHex = (hex: string): string => Buffer.from(hex, 'hex').reverse().toString('hex');
