import { randomBytes } from 'node:crypto';
import { BIP32Factory } from 'bip32';
import * as ecc from 'tiny-secp256k1';
import type { LedgerAdaptor, PublicKey } from '../../src/ledger/adaptor.js';
import type { ChainBlock, ChainTransfer, DepositSource } from '../../src/ledger/deposit-source.js';
import type { Bip44Account, VaultRecord } from '../../src/vaults/vault-schema.js';

const bip32 = BIP32Factory(ecc);

/**
 * A chain in memory behind the deposit-source contract: blocks appended, replaced from a
 * height (a reorganisation), a node that stops answering or falls behind. For the scanner's
 * own logic; the families' sources are tested on their real local nodes.
 */
export class FakeChain implements DepositSource {
  blocks: ChainBlock[] = [];
  down = false;
  /** Answers as if the node's chain ended here (a node behind). */
  visibleTo?: number;
  /** Throws on the next `block` of this height (a crash mid-scan). */
  failAt?: number;
  private salt = 0;

  constructor() {
    this.blocks.push({ height: 0, hash: this.hashOf(0), parentHash: '', time: Date.now(), transfers: [] });
  }

  private hashOf(height: number): string {
    return `h${height}-${this.salt++}-${randomBytes(4).toString('hex')}`;
  }

  get height(): number {
    return this.blocks.length - 1;
  }

  /** Appends a block with these transfers; returns it. */
  mine(...transfers: ChainTransfer[]): ChainBlock {
    const parent = this.blocks.at(-1) as ChainBlock;
    const b = { height: parent.height + 1, hash: this.hashOf(parent.height + 1), parentHash: parent.hash, time: Date.now(), transfers };
    this.blocks.push(b);
    return b;
  }

  mineEmpty(n: number): void {
    for (let i = 0; i < n; i++) this.mine();
  }

  /** Drops the blocks above `height`: the next `mine` builds a competing branch. */
  rewindTo(height: number): ChainBlock[] {
    return this.blocks.splice(height + 1);
  }

  async tip() {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:8545');
    const top = this.blocks[Math.min(this.height, this.visibleTo ?? this.height)] as ChainBlock;
    return { height: top.height, hash: top.hash };
  }

  async block(height: number) {
    if (this.down) throw new Error('connect ECONNREFUSED 127.0.0.1:8545');
    if (this.failAt === height) {
      this.failAt = undefined;
      throw new Error('socket hang up');
    }
    if (this.visibleTo !== undefined && height > this.visibleTo) return undefined;
    return this.blocks[height];
  }
}

let txCounter = 0;
export function transfer(to: string, amount: bigint, more: Partial<ChainTransfer> = {}): ChainTransfer {
  return { txid: `tx${++txCounter}`, index: 'out:0', to, asset: 'FAKE', configured: true, amount, from: ['outsider'], ...more };
}

/** Enough of an adaptor for the vault registry's address derivation and the scanner. */
export function fakeAdaptor(confirmations = 3): LedgerAdaptor {
  return {
    ledgerId: 'fakedev',
    family: 'fake',
    network: 'dev',
    scheme: 'secp256k1',
    confirmations,
    nativeAsset: { symbol: 'FAKE', decimals: 8, native: true },
    addressFormats: () => ['plain'],
    addressFromPublicKey: (key: PublicKey) => `fk${Buffer.from(key.bytes).toString('hex').slice(2, 22)}`,
    isValidAddress: () => true,
    assets: () => [{ symbol: 'FAKE', decimals: 8, native: true }],
  } as unknown as LedgerAdaptor;
}

export function singleVault(vaultId: string): VaultRecord {
  const node = bip32.fromSeed(randomBytes(32));
  return { vaultId, ledgerId: 'fakedev', kind: 'single', publicKey: Buffer.from(node.publicKey).toString('hex'), createdAt: new Date().toISOString() };
}

export function bip44Vault(vaultId: string): { record: VaultRecord; addressAt(adaptor: LedgerAdaptor, chain: number, index: number): string } {
  const root = bip32.fromSeed(randomBytes(32));
  const node = root.derivePath("m/44'/1'/0'").neutered();
  const bip44: Bip44Account = {
    publicKey: Buffer.from(node.publicKey).toString('hex'),
    cpar: Buffer.from(node.chainCode).toString('hex'),
    bipLevel: 3,
    parentFingerprint: 0,
    childNumber: 0,
    coin: '1',
    account: '0',
  };
  return {
    record: { vaultId, ledgerId: 'fakedev', kind: 'bip44', bip44, createdAt: new Date().toISOString() },
    addressAt: (adaptor, chain, index) =>
      adaptor.addressFromPublicKey({ scheme: 'secp256k1', bytes: Uint8Array.from(node.derive(chain).derive(index).publicKey) }),
  };
}
