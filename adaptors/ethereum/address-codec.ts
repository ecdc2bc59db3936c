import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { ETHEREUM_LEDGERS } from './ledgers.js';
import { addressFromPublicKey, ADDRESS_FORMATS, canonicalAddress, isValidAddress } from './logic/address.js';

/** Address operations of an Ethereum ledger: the same on every chain; the adaptor is built on this object. */
export function ethereumAddressCodec(ledgerId: string, network: string): AddressCodec {
  return {
    ledgerId,
    family: 'ethereum',
    network,
    scheme: 'secp256k1',
    addressFormats: () => [...ADDRESS_FORMATS],
    addressFromPublicKey,
    isValidAddress,
    canonicalAddress,
  };
}

export function builtInEthereumCodec(ledgerId: string): AddressCodec | undefined {
  const known = ETHEREUM_LEDGERS[ledgerId];
  return known ? ethereumAddressCodec(ledgerId, known.network) : undefined;
}
