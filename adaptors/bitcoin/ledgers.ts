import { networks, type Network } from 'bitcoinjs-lib';

export type BitcoinNetworkName = 'mainnet' | 'testnet' | 'testnet4' | 'regtest';

/** Ledger ids this family knows, and the network each runs on unless configured otherwise. */
export const BITCOIN_LEDGERS: Record<string, BitcoinNetworkName> = {
  btc: 'mainnet',
  btctest: 'testnet',
  btcregtest: 'regtest',
};

/**
 * Address parameters. testnet4 shares testnet3's prefixes (tb, 0x6f, 0xc4); regtest differs
 * only in its bech32 prefix (bcrt), as in Bitcoin Core.
 */
export const BITCOINJS_NETWORKS: Record<BitcoinNetworkName, Network> = {
  mainnet: networks.bitcoin,
  testnet: networks.testnet,
  testnet4: networks.testnet,
  regtest: networks.regtest,
};

/** Genesis block hashes: how `health` tells which network a back end is really on. */
export const GENESIS_HASHES: Record<BitcoinNetworkName, string> = {
  mainnet: '000000000019d6689c085ae165831e934ff763ae46a2a6c172b3f1b60a8ce26f',
  testnet: '000000000933ea01ad0ee984209779baaec3ced90fa3f408719526f8d77f4943',
  testnet4: '00000000da84f2bafbbc53dee25a72ae507ff4914b867c565be350b0da8bf043',
  regtest: '0f9188f13cb7b2c71f2a335e3a4fc328bf5beb436012afca590b1a11466e2206',
};
