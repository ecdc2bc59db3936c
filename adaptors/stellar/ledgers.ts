import { Networks } from '@stellar/stellar-base';

/** Built-in Stellar ledgers: network passphrase and network name by ledger id. */
export const STELLAR_LEDGERS: Record<string, { passphrase: string; network: string }> = {
  stellar: { passphrase: Networks.PUBLIC, network: 'pubnet' },
  stellartest: { passphrase: Networks.TESTNET, network: 'testnet' },
  // The local simulator (local-node/) uses stellar-core's standalone passphrase.
  stellardev: { passphrase: Networks.STANDALONE, network: 'standalone' },
};
