/** Built-in Ethereum ledgers: chain id and network name by ledger id. */
export const ETHEREUM_LEDGERS: Record<string, { chainId: number; network: string }> = {
  eth: { chainId: 1, network: 'mainnet' },
  ethtest: { chainId: 11155111, network: 'sepolia' },
  ethdev: { chainId: 31337, network: 'dev' },
};
