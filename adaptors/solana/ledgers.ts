/** Ledger ids this family knows, with the genesis hash their RPC must report (none for the local node). */
export const SOLANA_LEDGERS: Record<string, { network: string; genesisHash?: string }> = {
  solana: { network: 'mainnet-beta', genesisHash: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdpKuc147dw2N9d' },
  solanatest: { network: 'devnet', genesisHash: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1wcaWoxPkrZBG' },
  solanadev: { network: 'localnet' },
};
