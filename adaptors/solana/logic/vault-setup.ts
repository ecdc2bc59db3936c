import type { VaultSetup, VaultSource } from '../../../src/ledger/adaptor.js';
import type { SolanaContext } from '../context.js';
import { isWalletAccount, NONCE_ACCOUNT_SPACE } from './accounts.js';
import { setupMinimum } from './craft.js';
import { nonceAccountAddress } from './nonce.js';

/**
 * A vault's withdrawals carry its durable nonce, so the nonce account must exist first. When it
 * does not (nothing at the nonce address, or only SOL someone sent there), the setup is a SOL
 * payment to that address of what makes it rent-exempt; `craft` turns a withdrawal to the nonce
 * address into the account's creation. An existing nonce account needs nothing (whose authority
 * it answers to is checked when a withdrawal is crafted).
 */
export async function vaultSetup(ctx: SolanaContext, source: VaultSource): Promise<VaultSetup | undefined> {
  const vault = source.addresses[0]?.address;
  if (!vault) return undefined;
  const nonceAddress = await nonceAccountAddress(vault);
  const [nonceAcc] = await ctx.rpc.getMultipleAccounts([nonceAddress]);
  if (nonceAcc && !isWalletAccount(nonceAcc)) return undefined;
  const { minimum, why } = setupMinimum(nonceAcc, await ctx.rpc.rentExemptMinimum(NONCE_ACCOUNT_SPACE));
  return { kind: 'nonce-account', recipientAddress: nonceAddress, amount: minimum, why: `the vault's durable-nonce account ${nonceAddress}: ${why}` };
}
