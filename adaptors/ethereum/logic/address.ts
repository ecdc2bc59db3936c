import { getAddress, getBytes, keccak256, type Transaction } from 'ethers';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import { Recent } from './recent.js';
import { storedPublicKey, uncompressedPoint, type PublicKey } from '../../../src/ledger/public-key.js';
import { secp256k1 } from '../../../src/ledger/secp256k1.js';

export const ADDRESS_FORMATS = ['eip55'] as const;

/** EIP-55 checksummed address of a key (see addressOfPoint). */
export function addressFromPublicKey(key: PublicKey, format?: string): string {
  if (format !== undefined && format !== 'eip55') {
    throw new InvalidArgumentError(`Unknown address format '${format}'. Valid values: ${ADDRESS_FORMATS.join(', ')}`);
  }
  if (key.scheme !== 'secp256k1') throw new InvalidArgumentError('Ethereum addresses need a secp256k1 key');
  return addressOfPoint(uncompressedPoint(key));
}

/** The EIP-55 address of an uncompressed secp256k1 point (0x04 ‖ X ‖ Y): the last 20 bytes of keccak256(X ‖ Y). */
export function addressOfPoint(point: Uint8Array): string {
  return getAddress(`0x${keccak256(point.subarray(1)).slice(-40)}`);
}

/** Both letter cases among an address's hex digits: then, and only then, the case is an EIP-55 checksum. */
const MIXED_CASE = /([A-F].*[a-f])|([a-f].*[A-F])/;

/**
 * The EIP-55 spellings and key addresses of one ledger worked out lately. Each costs a keccak-256
 * in plain JavaScript (ethers), and creating one withdrawal asked for eight: the recipient's
 * validity, the vault's address from its key, the vault-to-itself check, the transaction's
 * `from`, `to` and recipient. In the creation bench that was 11 % of the API's CPU; now the
 * recipient costs one and the vault none. Bounded: the oldest go first.
 */
export class Checksums {
  private readonly byLowerCase: Recent<string>;
  private readonly byKey: Recent<string>;

  constructor(max = 2048) {
    this.byLowerCase = new Recent(max);
    this.byKey = new Recent(max);
  }

  /** The EIP-55 spelling of a valid address in any letter case (one text per account), remembered. */
  of(address: string): string {
    const lower = address.toLowerCase();
    let spelled = this.byLowerCase.get(lower);
    if (spelled === undefined) {
      spelled = getAddress(lower);
      this.byLowerCase.set(lower, spelled);
    }
    return spelled;
  }

  /**
   * A 0x-prefixed 20-byte hex address. All-lower or all-upper case carries no checksum and is
   * accepted; mixed case must be the correct EIP-55 checksum, checked against the remembered spelling.
   */
  isValid(address: string): boolean {
    if (typeof address !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(address)) return false;
    return !MIXED_CASE.test(address) || this.of(address) === address;
  }

  /** addressFromPublicKey, remembered per key (a refused key or format is refused every time). */
  fromPublicKey(key: PublicKey, format?: string): string {
    const id = `${format ?? ''}:${key.scheme}:${Buffer.from(key.bytes).toString('hex')}`;
    let address = this.byKey.get(id);
    if (address === undefined) {
      address = addressFromPublicKey(key, format);
      this.byKey.set(id, address);
    }
    return address;
  }
}

/**
 * The lower-case addresses of the stored keys (hex, as payloads hold them) seen lately: a
 * vault signs many withdrawals with one key, and decompressing it (0.1 ms) each time is work
 * thrown away. Bounded: the oldest go first.
 */
export class KeyAddresses {
  private readonly byKey: Recent<string>;

  constructor(max = 1024) {
    this.byKey = new Recent(max);
  }

  of(publicKeyHex: string): string {
    const key = publicKeyHex.toLowerCase();
    let address = this.byKey.get(key);
    if (address === undefined) {
      address = addressFromPublicKey(storedPublicKey(key, 'secp256k1')).toLowerCase();
      this.byKey.set(key, address);
    }
    return address;
  }
}

/**
 * The address that signed `tx`, recovered with libsecp256k1 or tiny-secp256k1
 * (src/ledger/secp256k1.ts). ethers' own `tx.from` recovers in plain JavaScript, several times
 * slower: per withdrawal it was the largest cost of the worker in a drain.
 * Undefined when the transaction carries no signature or the signature recovers no key.
 */
export function senderOf(tx: Transaction): string | undefined {
  const sig = tx.signature;
  if (!sig) return undefined;
  const compact = new Uint8Array(64);
  compact.set(getBytes(sig.r), 0);
  compact.set(getBytes(sig.s), 32);
  const key = secp256k1.recover(getBytes(tx.unsignedHash), compact, sig.yParity, false);
  return key ? addressOfPoint(key) : undefined;
}
