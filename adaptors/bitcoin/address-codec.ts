import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { addressFromPublicKey, ADDRESS_FORMATS, canonicalAddress, isValidAddress } from './logic/address.js';
import { BITCOIN_LEDGERS, BITCOINJS_NETWORKS, type BitcoinNetworkName } from './ledgers.js';

/** Address operations of one Bitcoin network; the adaptor is built on the same object. */
export function bitcoinAddressCodec(ledgerId: string, networkName: BitcoinNetworkName, defaultFormat: string): AddressCodec {
  const network = BITCOINJS_NETWORKS[networkName];
  return {
    ledgerId,
    family: 'bitcoin',
    network: networkName,
    scheme: 'secp256k1',
    addressFormats: () => [defaultFormat, ...ADDRESS_FORMATS.filter((f) => f !== defaultFormat)],
    addressFromPublicKey: (key, format) => addressFromPublicKey(key, format ?? defaultFormat, network),
    isValidAddress: (address) => isValidAddress(address, network),
    canonicalAddress: (address) => canonicalAddress(address, network),
  };
}

/** A built-in id's codec with the default options (`p2wpkh`), or undefined for an id the family does not know. */
export function builtInBitcoinCodec(ledgerId: string): AddressCodec | undefined {
  const networkName = BITCOIN_LEDGERS[ledgerId];
  return networkName ? bitcoinAddressCodec(ledgerId, networkName, 'p2wpkh') : undefined;
}
