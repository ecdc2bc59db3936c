/** Every Redis key name of the vault registry, built in one place from the service's key prefix. */
export interface VaultKeys {
  /** The vault's record (a JSON string). */
  vault(vaultId: string): string;
  /** Sorted set of registered vault ids, for listing. */
  readonly index: string;
  /** Hash of a BIP44 vault's further accounts, field `coin/account`. */
  accounts(vaultId: string): string;
  /** Hash of one BIP44 account's derived addresses and last used indexes (`address-index.ts`). */
  addressIndex(vaultId: string, coin: string, account: string): string;
}

export function vaultKeys(prefix: string): VaultKeys {
  return {
    vault: (vaultId) => `${prefix}vault:${vaultId}`,
    index: `${prefix}vaults`,
    accounts: (vaultId) => `${prefix}vault:${vaultId}:accounts`,
    addressIndex: (vaultId, coin, account) => `${prefix}vault:${vaultId}:addresses:${coin}/${account}`,
  };
}
