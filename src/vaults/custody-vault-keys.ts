import type { CustodyClient } from '../custody/custody-client.js';
import { CustodyNotFoundError, CustodyRequestError } from '../custody/errors.js';
import { InvalidArgumentError, NotFoundError, UnavailableError } from '../platform/errors.js';
import type { Bip44Account } from './vault-schema.js';

/** What a registration by vault id reads from the custody service. */
export type CustodyVaultKey = { publicKey: string } | { bip44: Bip44Account };

/**
 * Reads a vault's key from the custody service: the single key (`GET {mng}/vaults/{id}/publickey`)
 * or, with coin and account, the public part of that BIP44 account's backup. The service's
 * refusals become the wallet layer's errors: unknown vault or account 404, a vault of the other
 * kind 422 (with what to send instead), the service unreachable 503.
 */
export async function readVaultKey(custody: CustodyClient | undefined, vaultId: string, bip44?: { coin: string; account: string }): Promise<CustodyVaultKey> {
  if (!custody) throw new UnavailableError('No custody service is configured (CUSTODY_URL): give the vault key in publicKey or bip44');
  try {
    if (!bip44) return { publicKey: (await custody.vaultPublicKey(vaultId)).publicKey };
    const backup = await custody.accountBackup(vaultId, bip44.coin, bip44.account);
    return { bip44: { ...backup, coin: bip44.coin, account: bip44.account } };
  } catch (e) {
    if (e instanceof CustodyNotFoundError) {
      const what = bip44 ? `BIP44 coin ${bip44.coin} account ${bip44.account} of vault '${vaultId}'` : `Vault '${vaultId}'`;
      throw new NotFoundError(`${what} is not known to the custody service (${e.details})`);
    }
    if (e instanceof CustodyRequestError && [400, 406].includes(e.problem.upstreamStatus)) {
      // A vault whose members have not all joined has no key yet, whichever its kind.
      const notInitialized = /not[-_]initialized/i.test(`${e.problem.upstreamType ?? ''} ${e.problem.upstreamDetails ?? ''}`);
      const hint = notInitialized
        ? 'it is not initialized there yet: every member of its approval groups must join it first'
        : bip44
          ? 'it is not a BIP44 vault there: register it without coin and account'
          : 'it has no single key there (a BIP44 vault?): give coin and account';
      throw new InvalidArgumentError(`The custody service cannot give the key of vault '${vaultId}': ${hint} (${e.details})`);
    }
    throw e;
  }
}
