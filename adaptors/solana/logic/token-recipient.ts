import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { InvalidArgumentError } from '../../../src/platform/errors.js';
import type { AssetInfo } from '../../../src/ledger/adaptor.js';
import type { RpcAccount } from '../network/rpc.js';
import { isWalletAccount, readTokenAccount } from './accounts.js';
import { checkOwnerOnCurve } from './address.js';

export interface TokenRecipient {
  /** The token account the transfer credits. */
  tokenAccount: string;
  /** Set when that is the owner's associated token account and it does not exist: the transfer creates it first. */
  createFor?: string;
}

const refuse = (details: string) => new InvalidArgumentError(details, { field: 'recipientAddress' });

/**
 * Where an SPL payment to `recipient` goes. A wallet (an address with no account yet, or a
 * System account without data) is paid in its associated token account, created when missing.
 * A token account of this very mint (what an exchange's deposit page may show) is paid as it
 * is. Either way its owner must be on the ed25519 curve, unless the request consented (an
 * associated token account created for a program-derived address is that program's alone).
 * Anything else is refused: an associated token account owned by a token account, a nonce
 * account or a program's account would hold the tokens for an owner nobody can sign for.
 */
export function tokenRecipient(p: {
  recipient: string;
  recipientAccount: RpcAccount | null;
  /** The recipient's associated token account for the mint, and its account. */
  ata: string;
  ataAccount: RpcAccount | null;
  asset: AssetInfo;
  mint: string;
  vault: string;
  nonceAccount: string;
  /** The request consented to an owner off the ed25519 curve (see checkOwnerOnCurve). */
  allowOffCurve: boolean;
}): TokenRecipient {
  const { recipient, recipientAccount: acc, asset, mint } = p;
  if (!acc || isWalletAccount(acc)) {
    checkOwnerOnCurve(recipient, p.allowOffCurve, `the recipient (the owner of the ${asset.symbol} token account paid)`);
    return p.ataAccount ? { tokenAccount: p.ata } : { tokenAccount: p.ata, createFor: recipient };
  }
  const token = readTokenAccount(acc);
  if (token) {
    if (token.mint !== mint)
      throw refuse(`${recipient} is a token account of mint ${token.mint}, not of ${asset.symbol} (${mint}); ask the recipient for a ${asset.symbol} address`);
    if (token.owner === p.vault) throw refuse(`${recipient} is a ${asset.symbol} token account of the vault itself`);
    checkOwnerOnCurve(token.owner, p.allowOffCurve, `${recipient} is a ${asset.symbol} token account whose owner`);
    return { tokenAccount: recipient };
  }
  if (recipient === p.nonceAccount) throw refuse(`${recipient} is the vault's durable nonce account, not a wallet`);
  if (acc.owner === SYSTEM_PROGRAM_ADDRESS) throw refuse(`${recipient} is a System account holding data (such as a durable nonce account), not a wallet`);
  if (acc.owner === TOKEN_PROGRAM_ADDRESS) throw refuse(`${recipient} is an SPL Token program account that is not a token account (a mint or a multisig)`);
  throw refuse(`${recipient} is an account of program ${acc.owner}, neither a wallet nor a ${asset.symbol} token account`);
}
