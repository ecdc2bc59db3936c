import { address as baddress, payments, type Network } from 'bitcoinjs-lib';
import { InvalidArgumentError, unknownValue } from '../../../src/platform/errors.js';
import type { PublicKey } from '../../../src/ledger/public-key.js';

export const ADDRESS_FORMATS = ['p2wpkh', 'p2sh-p2wpkh', 'p2pkh'] as const;
export type AddressFormat = (typeof ADDRESS_FORMATS)[number];

export function isAddressFormat(format: string): format is AddressFormat {
  return (ADDRESS_FORMATS as readonly string[]).includes(format);
}

/**
 * Address of a vault key. Keys arrive compressed (src/ledger/public-key.ts), which SegWit
 * requires (BIP143 "Restrictions on public key type"); P2PKH uses the compressed key too,
 * so one key gives one P2PKH address whatever form the custody service reported it in.
 */
export function addressFromPublicKey(key: PublicKey, format: string, network: Network): string {
  if (key.scheme !== 'secp256k1') throw new InvalidArgumentError('Bitcoin addresses need a secp256k1 key');
  const f = format.toLowerCase();
  if (!isAddressFormat(f)) throw unknownValue('address format', format, ADDRESS_FORMATS);
  const pubkey = key.bytes;
  let address: string | undefined;
  if (f === 'p2wpkh') address = payments.p2wpkh({ pubkey, network }).address;
  else if (f === 'p2sh-p2wpkh') address = payments.p2sh({ redeem: payments.p2wpkh({ pubkey, network }), network }).address;
  else address = payments.p2pkh({ pubkey, network }).address;
  if (!address) throw new InvalidArgumentError('cannot derive an address from this key');
  return address;
}

/** Which of the three formats `address` is for `key`, or undefined if it is none of them. */
export function detectFormat(key: PublicKey, address: string, network: Network): AddressFormat | undefined {
  return ADDRESS_FORMATS.find((f) => addressFromPublicKey(key, f, network) === address);
}

/**
 * Output script of a recipient address on `network`, or undefined when it is not one we pay.
 *
 * Accepted: base58check P2PKH/P2SH with the network's version bytes, and bech32/bech32m
 * (BIP173/BIP350) witness v0 (20-byte P2WPKH, 32-byte P2WSH) and v1 32-byte (P2TR) with the
 * network's prefix. Refused on purpose although BIP350 decodes them: witness v1 of another
 * length and v2-v16, whose meaning no soft fork has defined yet (paying them can burn funds).
 * Taproot keys are not checked to be on the curve, as in Bitcoin Core, so no ECC library
 * needs to be registered with bitcoinjs.
 */
export function recipientScript(address: string, network: Network): Uint8Array | undefined {
  if (typeof address !== 'string' || address.length === 0 || address.length > 90) return undefined;
  let b58: { version: number; hash: Uint8Array } | undefined;
  try {
    b58 = baddress.fromBase58Check(address);
  } catch {
    b58 = undefined;
  }
  if (b58) {
    if (b58.hash.length !== 20) return undefined;
    if (b58.version === network.pubKeyHash) return Uint8Array.from([0x76, 0xa9, 0x14, ...b58.hash, 0x88, 0xac]);
    if (b58.version === network.scriptHash) return Uint8Array.from([0xa9, 0x14, ...b58.hash, 0x87]);
    return undefined;
  }
  let seg: { version: number; prefix: string; data: Uint8Array };
  try {
    // fromBech32 enforces bech32 for v0 and bech32m for v1+ (BIP350), checksums, case and padding.
    seg = baddress.fromBech32(address);
  } catch {
    return undefined;
  }
  if (seg.prefix !== network.bech32) return undefined;
  const n = seg.data.length;
  if (seg.version === 0 && (n === 20 || n === 32)) return Uint8Array.from([0x00, n, ...seg.data]);
  if (seg.version === 1 && n === 32) return Uint8Array.from([0x51, n, ...seg.data]);
  return undefined;
}

export function isValidAddress(address: string, network: Network): boolean {
  return recipientScript(address, network) !== undefined;
}

/**
 * The one address of the output script `address` pays (see LedgerAdaptor.canonicalAddress):
 * bech32 in lower case (BIP173 allows all upper case too), base58check as its version and hash
 * give it. Two spellings of one script give one text. An address this network does not pay
 * comes back as it is.
 */
export function canonicalAddress(address: string, network: Network): string {
  const script = recipientScript(address, network);
  if (!script) return address;
  if (script[0] === 0x76) return baddress.toBase58Check(script.subarray(3, 23), network.pubKeyHash);
  if (script[0] === 0xa9) return baddress.toBase58Check(script.subarray(2, 22), network.scriptHash);
  return baddress.toBech32(script.subarray(2), script[0] === 0x00 ? 0 : 1, network.bech32);
}
