import { payments, type Network } from 'bitcoinjs-lib';
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
