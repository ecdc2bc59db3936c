import type { AddressCodec } from '../../src/ledger/adaptor.js';
import { SOLANA_LEDGERS } from './ledgers.js';
import { ADDRESS_FORMATS, addressFromPublicKey, isValidAddress } from './logic/address.js';

/** Address operations of a Solana ledger (base58 keys, the same on every cluster); the adaptor is built on this object. */
export function solanaAddressCodec(ledgerId: string, network: string): AddressCodec {
  return {
    ledgerId,
    family: 'solana',
    network,
    scheme: 'ed25519',
    addressFormats: () => [...ADDRESS_FORMATS],
    addressFromPublicKey,
    isValidAddress,
  };
}

export function builtInSolanaCodec(ledgerId: string): AddressCodec | undefined {
  const known = SOLANA_LEDGERS[ledgerId];
  return known ? solanaAddressCodec(ledgerId, known.network) : undefined;
}
