import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { ConflictError, InvalidArgumentError } from '../../../src/platform/errors.js';
import type { AssetInfo, UnsignedWithdrawal, VaultSource, WithdrawalIntent } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { insufficientFunds } from '../../../src/ledger/insufficient-funds.js';
import { claimReservation, reserveAndBuild } from '../../../src/ledger/reserve-and-build.js';
import { singlePayloadWithdrawal } from '../../../src/ledger/single-payload.js';
import type { SolanaContext } from '../context.js';
import type { RpcAccount } from '../network/rpc.js';
import { associatedTokenAccount, isWalletAccount, NONCE_ACCOUNT_SPACE, readNonceAccount, TOKEN_ACCOUNT_SPACE, tokenAmount } from './accounts.js';
import { addressFromPublicKey, checkOwnerOnCurve, isValidAddress } from './address.js';
import { knownAsset, SOL } from './assets.js';
import { LAMPORTS_PER_SIGNATURE, priorityLamports, resolvePriorityFee } from './fees.js';
import { COMPUTE_UNITS, computeBudget, nonceSetup, solTransfer, tokenTransfer } from './instructions.js';
import { compileMessage, type Lifetime } from './message.js';
import { nonceAccountAddress, nonceScope } from './nonce.js';
import { solanaState, type SolanaState } from './state.js';
import { tokenRecipient, type TokenRecipient } from './token-recipient.js';

const MAX_U64 = 2n ** 64n - 1n;
/** A week at least, and as long as a withdrawal may wait for its quorum (`minReservationMs`); release() frees it sooner when the operation ends. */
const CLAIM_TTL_MS = 7 * 24 * 3600_000;
/** How long a recent blockhash is accepted (150 slots of ~400 ms, less a margin). */
const BLOCKHASH_LIFETIME_MS = 55_000;
const sol = (lamports: bigint) => `${formatAmount(lamports, SOL.decimals)} SOL`;

/**
 * Builds one transaction from the vault's address, signed by the vault alone:
 * - SOL or SPL (TransferChecked to the recipient's associated token account, created when
 *   missing with its rent paid by the vault and counted in the fee, or to the recipient
 *   itself when it is a token account of the mint), with `advanceNonceAccount` on the vault's
 *   durable nonce account first, so approval may take as long as it takes;
 * - or, when the recipient is the vault's own nonce address and no nonce account is there
 *   (nothing, or SOL someone sent to it), the setup: pay it `amount` lamports, make it the
 *   nonce account and the vault its authority. Only this setup uses a recent blockhash (it
 *   must be signed within a minute).
 * The nonce value is claimed under the operation's reference, so two withdrawals of one vault
 * never carry the same nonce (only one of them could ever land).
 */
export async function craft(ctx: SolanaContext, source: VaultSource, intent: WithdrawalIntent): Promise<UnsignedWithdrawal> {
  const { from, vault, recipient, asset } = checkedIntent(ctx, source, intent);
  const reads = await readAccounts(ctx, vault, recipient, asset);
  const { nonceAccount, rentFloor } = reads;
  const lamports = BigInt(reads.vaultAcc?.lamports ?? 0);
  const scope = nonceScope(ctx.ledgerId, vault);

  // SOL sent straight to the nonce address leaves a plain System account there: still no nonce account.
  const { kind, lifetime, plan } =
    !reads.nonceAcc || isWalletAccount(reads.nonceAcc)
      ? await setupPlan(ctx, source, intent, asset, vault, recipient, reads.nonceAcc, nonceAccount)
      : transferPlan(intent, asset, vault, recipient, reads.nonceAcc, reads);

  const micro = await resolvePriorityFee(ctx, intent.fee, [vault, nonceAccount]);
  const fee = LAMPORTS_PER_SIGNATURE + priorityLamports(micro, plan.units) + plan.rent;
  checkVaultPays(vault, lamports, plan.spendSol, fee, rentFloor);

  const claim = kind === 'transfer' ? `nonce:${lifetime.kind === 'nonce' ? lifetime.nonce : ''}` : 'setup';
  const nonceHeld = claimReservation(
    ctx.deps.reservations,
    scope,
    [claim],
    intent.reference,
    Math.max(CLAIM_TTL_MS, ctx.deps.minReservationMs ?? 0),
    () =>
      new ConflictError(
        `another withdrawal of vault ${source.vaultId} holds its durable nonce until it is broadcast or fails; retry after it is confirmed`,
        'ERR_NONCE_IN_USE',
        { nonceAddress: nonceAccount },
      ),
  );
  return reserveAndBuild(ctx.deps.logger, [nonceHeld], () => {
    const { message, unsignedTx } = compileMessage(vault, lifetime, [...computeBudget(plan.units, micro), ...plan.instructions]);
    const state: SolanaState = {
      kind,
      vault,
      nonceAccount,
      lifetime: lifetime.kind === 'nonce' ? lifetime.nonce : lifetime.blockhash,
      scope,
      claim,
      ...(lifetime.kind === 'blockhash' ? { lastValidBlockHeight: lifetime.lastValidBlockHeight } : {}),
    };
    return singlePayloadWithdrawal({
      serialized: Buffer.from(unsignedTx).toString('hex'),
      signer: from,
      // ed25519 signs the message itself: the payload is the whole message, not a hash of it.
      hashAlgorithm: 'PLAIN',
      preimage: Buffer.from(message).toString('hex'),
      fee,
      state: solanaState.encode(state),
      ...(kind === 'nonce-setup' ? { expiresAt: Date.now() + BLOCKHASH_LIFETIME_MS } : {}),
    });
  });
}

/** The vault's address (the address of its key), a Solana recipient other than the vault, a configured asset and an amount a u64 holds. */
function checkedIntent(ctx: SolanaContext, source: VaultSource, intent: WithdrawalIntent) {
  const from = source.addresses[0];
  if (!from) throw new InvalidArgumentError(`vault ${source.vaultId} has no address`);
  const vault = addressFromPublicKey(from.publicKey);
  if (from.address !== vault) throw new InvalidArgumentError(`vault address ${from.address} is not the address of its key (${vault})`);
  const recipient = intent.recipientAddress;
  if (!isValidAddress(recipient)) throw new InvalidArgumentError(`'${recipient}' is not a Solana address (base58 of 32 bytes)`);
  const asset = knownAsset(ctx.assets, intent.asset);
  if (intent.amount <= 0n || intent.amount > MAX_U64) throw new InvalidArgumentError('amount must be between 1 and 2^64-1 base units');
  if (recipient === vault) throw new InvalidArgumentError('the recipient is the vault itself');
  return { from, vault, recipient, asset };
}

/** The vault, its nonce account, the recipient and (SPL) both token accounts, read in one request, with the rents a withdrawal may need. */
async function readAccounts(ctx: SolanaContext, vault: string, recipient: string, asset: AssetInfo) {
  const nonceAccount = await nonceAccountAddress(vault);
  const mint = asset.contract;
  const [fromAta, toAta] = mint ? await Promise.all([associatedTokenAccount(vault, mint), associatedTokenAccount(recipient, mint)]) : [];
  const keys = [vault, nonceAccount, recipient, ...(fromAta && toAta ? [fromAta, toAta] : [])];
  const [accounts, rentFloor, tokenAccountRent] = await Promise.all([
    ctx.rpc.getMultipleAccounts(keys),
    ctx.rpc.rentExemptMinimum(0),
    mint ? ctx.rpc.rentExemptMinimum(TOKEN_ACCOUNT_SPACE) : 0n,
  ]);
  const [vaultAcc, nonceAcc, recipientAcc, fromAtaAcc, toAtaAcc] = accounts;
  return { nonceAccount, mint, fromAta, toAta, vaultAcc, nonceAcc, recipientAcc, fromAtaAcc, toAtaAcc, rentFloor, tokenAccountRent };
}

type Reads = Awaited<ReturnType<typeof readAccounts>>;

interface Planned {
  kind: SolanaState['kind'];
  lifetime: Lifetime;
  plan: { instructions: ReturnType<typeof nonceSetup>; units: number; rent: bigint; spendSol: bigint };
}

/** The vault has no nonce account yet: only a SOL withdrawal to its nonce address, of at least its rent, is accepted, and creates it (under a recent blockhash). */
async function setupPlan(
  ctx: SolanaContext,
  source: VaultSource,
  intent: WithdrawalIntent,
  asset: AssetInfo,
  vault: string,
  recipient: string,
  nonceAcc: RpcAccount | null | undefined,
  nonceAccount: string,
): Promise<Planned> {
  // Asked only here: a vault with its nonce account never needs it.
  const nonceRent = await ctx.rpc.rentExemptMinimum(NONCE_ACCOUNT_SPACE);
  const { minimum, why } = setupMinimum(nonceAcc, nonceRent);
  if (recipient !== nonceAccount) {
    throw new ConflictError(
      `vault ${source.vaultId} has no durable nonce account yet. Create it once with a SOL withdrawal of at least ` +
        `${sol(minimum)} (${why}) to the vault's nonce address ${nonceAccount}; once that is confirmed, withdrawals work.`,
      'ERR_NONCE_ACCOUNT_MISSING',
      { nonceAddress: nonceAccount, minimum: minimum.toString() },
    );
  }
  if (!asset.native) throw new InvalidArgumentError(`the nonce account ${nonceAccount} is created with SOL, not ${asset.symbol}`);
  if (intent.amount < minimum) {
    throw new InvalidArgumentError(`creating the nonce account needs at least ${sol(minimum)} (${why}), got ${sol(intent.amount)}`, {
      minimum: minimum.toString(),
    });
  }
  const { blockhash, lastValidBlockHeight } = await ctx.rpc.getLatestBlockhash();
  return {
    kind: 'nonce-setup',
    lifetime: { kind: 'blockhash', blockhash, lastValidBlockHeight },
    plan: { instructions: nonceSetup(vault, nonceAccount, intent.amount), units: COMPUTE_UNITS.setup, rent: 0n, spendSol: intent.amount },
  };
}

/** A SOL or SPL transfer under the vault's durable nonce, whose authority must be the vault. */
function transferPlan(intent: WithdrawalIntent, asset: AssetInfo, vault: string, recipient: string, nonceAcc: RpcAccount, r: Reads): Planned {
  const { nonceAccount, mint } = r;
  const state = readNonceAccount(nonceAcc, nonceAccount);
  if (state.authority !== vault)
    throw new ConflictError(`nonce account ${nonceAccount} answers to ${state.authority}, not to the vault ${vault}`, 'ERR_NONCE_AUTHORITY', {
      nonceAddress: nonceAccount,
      authority: state.authority,
    });
  const lifetime: Lifetime = { kind: 'nonce', nonce: state.nonce, nonceAccount };
  const plan = mint
    ? tokenPlan(
        asset,
        vault,
        mint,
        r.fromAta as string,
        tokenRecipient({
          recipient,
          recipientAccount: r.recipientAcc ?? null,
          ata: r.toAta as string,
          ataAccount: r.toAtaAcc ?? null,
          asset,
          mint,
          vault,
          nonceAccount,
          allowOffCurve: intent.allowOffCurveRecipient === true,
        }),
        intent.amount,
        tokenAmount(r.fromAtaAcc ?? null, mint, `token account of ${vault}`),
        r.tokenAccountRent,
      )
    : solPlan(recipient, intent, r.recipientAcc ?? null, { vault, nonceAccount, rentFloor: r.rentFloor });
  return { kind: 'transfer', lifetime, plan };
}

/**
 * The vault pays the fee and must stay rent-exempt (or be emptied entirely). `required` is the
 * least balance that lets this withdrawal through: its amount and fee, plus the rent-exempt
 * minimum when what would be left is under it (the balance then exceeds amount and fee, so
 * naming only those would show a client `required` below `available` for a refusal).
 */
function checkVaultPays(vault: string, lamports: bigint, spendSol: bigint, fee: bigint, rentFloor: bigint): void {
  const need = spendSol + fee;
  const left = lamports - need;
  if (left === 0n || left >= rentFloor) return;
  const keep = left > 0n;
  const required = keep ? need + rentFloor : need;
  throw insufficientFunds(
    `${vault} holds ${sol(lamports)}; this withdrawal needs ${sol(need)}${spendSol ? ' including' : ' for'} the fee ${sol(fee)}, and the vault must keep at least ${sol(rentFloor)} or nothing` +
      (keep ? `: ${sol(required)} to keep it${spendSol ? `, or ${sol(spendSol + left)} sent to empty it` : ''}` : ''),
    {
      address: vault,
      asset: SOL,
      required,
      available: lamports,
      fee: { amount: fee, asset: SOL },
      extra: { rentExemptMinimum: formatAmount(rentFloor, SOL.decimals) },
    },
  );
}

/** Programs whose accounts hold tokens (token accounts, mints): SOL sent to one is not credited to any wallet. */
const TOKEN_PROGRAMS: ReadonlySet<string> = new Set([TOKEN_PROGRAM_ADDRESS, 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb' /* Token-2022 */]);

/**
 * SOL to a wallet. Refused, consent or not: an account of a token program (a token account,
 * such as an associated token account's address, or a mint): its lamports are not its owner's
 * wallet balance, and only closing the account would give them back. Refused without consent: an
 * address off the ed25519 curve (a program-derived address), except the vault's own nonce
 * account, which the vault tops up.
 */
function solPlan(recipient: string, intent: WithdrawalIntent, acc: RpcAccount | null, v: { vault: string; nonceAccount: string; rentFloor: bigint }) {
  const { amount } = intent;
  const { vault, rentFloor } = v;
  if (acc && TOKEN_PROGRAMS.has(acc.owner)) {
    throw new InvalidArgumentError(
      `${recipient} is an account of the token program ${acc.owner} (a token account or a mint), not a wallet: SOL sent there is not its owner's to spend. Send SOL to the owner's wallet address`,
      { field: 'recipientAddress' },
    );
  }
  if (recipient !== v.nonceAccount) checkOwnerOnCurve(recipient, intent.allowOffCurveRecipient === true, 'the recipient');
  if (!acc && amount < rentFloor) {
    throw new InvalidArgumentError(
      `${recipient} does not exist yet; creating it needs at least ${sol(rentFloor)} (its rent-exempt minimum), got ${sol(amount)}`,
      {
        minimum: rentFloor.toString(),
      },
    );
  }
  return { instructions: [solTransfer(vault, recipient, amount)], units: COMPUTE_UNITS.sol, rent: 0n, spendSol: amount };
}

/** What the setup must pay the nonce address so that it holds its rent-exempt minimum (at least 1 lamport), and why. */
export function setupMinimum(existing: RpcAccount | null | undefined, nonceRent: bigint): { minimum: bigint; why: string } {
  const held = BigInt(existing?.lamports ?? 0);
  if (held === 0n) return { minimum: nonceRent, why: 'its rent-exempt minimum' };
  return { minimum: held < nonceRent ? nonceRent - held : 1n, why: `its rent-exempt minimum ${sol(nonceRent)}, of which ${sol(held)} is already there` };
}

function tokenPlan(asset: AssetInfo, vault: string, mint: string, fromAta: string, to: TokenRecipient, amount: bigint, held: bigint, accountRent: bigint) {
  if (held < amount) {
    throw insufficientFunds(
      `${vault} holds ${formatAmount(held, asset.decimals)} ${asset.symbol}; this withdrawal needs ${formatAmount(amount, asset.decimals)}`,
      {
        address: vault,
        asset,
        required: amount,
        available: held,
      },
    );
  }
  return {
    instructions: tokenTransfer({ vault, mint, decimals: asset.decimals, from: fromAta, to: to.tokenAccount, amount, createFor: to.createFor }),
    units: to.createFor ? COMPUTE_UNITS.tokenWithAccount : COMPUTE_UNITS.token,
    rent: to.createFor ? accountRent : 0n,
    spendSol: 0n,
  };
}

/** Frees the nonce claim when the operation ends before broadcast. */
export async function release(ctx: SolanaContext, unsigned: UnsignedWithdrawal, reference: string): Promise<void> {
  const state = solanaState.decode(unsigned.state);
  await ctx.deps.reservations.release(state.scope, [state.claim], reference);
}
