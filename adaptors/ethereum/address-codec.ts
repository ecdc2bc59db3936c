import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { ETHEREUM_LEDGERS } from './ledgers.js';
import { ADDRESS_FORMATS, Checksums } from './logic/address.js';

/**
 * Address operations of an Ethereum ledger: the same on every chain; the adaptor is built on this
 * object, and shares `checksums` with its crafting.
 */
export function ethereumAddressCodec(ledgerId: string, network: string, checksums = new Checksums()): AddressCodec {
  return {
    ledgerId,
    family: 'ethereum',
    network,
    scheme: 'secp256k1',
    addressFormats: () => [...ADDRESS_FORMATS],
    addressFromPublicKey: (key, format) => checksums.fromPublicKey(key, format),
    isValidAddress: (address) => checksums.isValid(address),
    canonicalAddress: (address) => checksums.of(address),
  };
}

export function builtInEthereumCodec(ledgerId: string): AddressCodec | undefined {
  const known = ETHEREUM_LEDGERS[ledgerId];
  return known ? ethereumAddressCodec(ledgerId, known.network) : undefined;
}
