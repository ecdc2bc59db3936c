import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { STELLAR_LEDGERS } from './ledgers.js';
import { ADDRESS_FORMATS, addressFromPublicKey, canonicalAddress, isValidAddress, parseNativePublicKey } from './logic/address.js';

/** Address operations of a Stellar ledger (StrKey does not depend on the network); the adaptor is built on this object. */
export function stellarAddressCodec(ledgerId: string, network: string): AddressCodec {
  return {
    ledgerId,
    family: 'stellar',
    network,
    scheme: 'ed25519',
    addressFormats: () => [...ADDRESS_FORMATS],
    parseNativePublicKey,
    addressFromPublicKey,
    isValidAddress,
    canonicalAddress,
  };
}

export function builtInStellarCodec(ledgerId: string): AddressCodec | undefined {
  const known = STELLAR_LEDGERS[ledgerId];
  return known ? stellarAddressCodec(ledgerId, known.network) : undefined;
}
