import { Account, Asset, extractBaseAddress, Operation, StrKey, TransactionBuilder, type xdr } from '@stellar/stellar-base';
import { ConflictError, InvalidArgumentError } from '../../../src/platform/errors.js';
import type { UnsignedWithdrawal, VaultSource, WithdrawalIntent } from '../../../src/ledger/adaptor.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { insufficientFunds } from '../../../src/ledger/insufficient-funds.js';
import { releaseAll, reserveAndBuild, sequenceReservation, type HeldReservation, type Reservation } from '../../../src/ledger/reserve-and-build.js';
import { singlePayloadWithdrawal } from '../../../src/ledger/single-payload.js';
import type { StellarContext } from '../context.js';
import type { HorizonAccount } from '../network/horizon.js';
import { addressFromPublicKey, splitRecipient } from './address.js';
import { assetLabel, findBalance, formatStroops, NATIVE_ASSET, parseStroops, STELLAR_DECIMALS, toSdkAsset } from './assets.js';
import { resolveFee } from './fees.js';
import { checkMemoRequired, resolveMemo } from './memo.js';
import { creationScope, sequenceScope } from './sequence.js';
import { signingPayload, stellarState } from './state.js';

const MAX_INT64 = 2n ** 63n - 1n;
const xlm = (stroops: bigint) => formatAmount(stroops, STELLAR_DECIMALS);

/**
 * One operation from the vault's account: `payment` to an existing account (native or credit,
 * `G…` or muxed `M…`), `create_account` for native XLM to an account that does not exist yet.
 * A memo-less payment to a `G…` account that requires a memo (SEP-29) is refused, and so is a
 * payment to the vault's own account in any spelling (`G…?memo=`, a muxed `M…` of it).
 * The source is the vault's first address (Stellar vault keys are single ed25519 keys).
 *
 * An account that a pending withdrawal is creating is held for it: a second withdrawal to it
 * before the first is in the ledger is answered 409, since a second `create_account` would
 * fail with `op_already_exists` and a `payment` would fail with `op_no_destination` if the
 * first never lands. The hold ends when the first fails, or expires with its time bounds.
 */
export async function craft(ctx: StellarContext, source: VaultSource, intent: WithdrawalIntent): Promise<UnsignedWithdrawal> {
  const from = source.addresses[0];
  if (!from) throw new InvalidArgumentError(`vault ${source.vaultId} has no address`);
  const sourceId = addressFromPublicKey(from.publicKey);
  if (from.address !== sourceId) throw new InvalidArgumentError(`vault address ${from.address} is not the account of its key (${sourceId})`);
  const recipient = splitRecipient(intent.recipientAddress);
  const dest = recipient.address;
  if (!StrKey.isValidEd25519PublicKey(dest) && !StrKey.isValidMed25519PublicKey(dest)) {
    throw new InvalidArgumentError(`'${dest}' is not a Stellar G… or M… address`);
  }
  const memo = resolveMemo(intent.memo, recipient.memo);
  const asset = toSdkAsset(ctx.assets, intent.asset);
  if (intent.amount <= 0n || intent.amount > MAX_INT64) {
    throw new InvalidArgumentError(`amount must be between ${xlm(1n)} and ${xlm(MAX_INT64)} (1 to 2^63-1 stroops)`, { field: 'amount' });
  }
  // Compared as accounts: a muxed M… of the vault, or its G… with a memo, pays the vault too.
  const destId = extractBaseAddress(dest);
  if (destId === sourceId) {
    throw new InvalidArgumentError(`${intent.recipientAddress} pays the vault's own account ${sourceId}: a payment to itself would only burn the fee`, {
      field: 'recipientAddress',
    });
  }

  const [account, destAccount, ledger] = await Promise.all([ctx.horizon.account(sourceId), ctx.horizon.account(destId), ctx.horizon.latestLedger()]);
  if (!account) {
    throw insufficientFunds(`source account ${sourceId} does not exist on the ledger yet; fund it with XLM first`, {
      address: sourceId,
      asset: intent.asset,
      required: intent.amount,
      available: 0n,
    });
  }
  checkMemoRequired(dest, destAccount, memo);
  const destExists = destAccount !== undefined;
  const baseReserve = BigInt(ledger.base_reserve_in_stroops);
  const fee = await resolveFee(ctx.horizon, intent.fee, BigInt(ledger.base_fee_in_stroops));

  let op: xdr.Operation;
  let creates: string | null = null;
  if (asset.isNative() && !destExists) {
    if (dest !== destId) throw new InvalidArgumentError(`muxed address ${dest}: its account ${destId} does not exist; create it by paying the G… address`);
    const minimum = 2n * baseReserve;
    if (intent.amount < minimum) {
      throw new InvalidArgumentError(
        `${destId} does not exist yet; creating it needs at least ${xlm(minimum)} XLM (2 base reserves), got ${xlm(intent.amount)}`,
        { minimum: minimum.toString() },
      );
    }
    op = Operation.createAccount({ destination: destId, startingBalance: formatStroops(intent.amount) });
    creates = destId;
  } else {
    if (!destExists) throw new InvalidArgumentError(`${destId} does not exist; ${assetLabel(asset)} can only be sent to an existing account with a trustline`);
    if (!asset.isNative() && destId !== asset.getIssuer() && !findBalance(destAccount as HorizonAccount, asset)) {
      throw new InvalidArgumentError(`${destId} has no trustline for ${assetLabel(asset)}`, { asset: assetLabel(asset) });
    }
    op = Operation.payment({ destination: dest, asset, amount: formatStroops(intent.amount) });
  }
  checkFunds(account, asset, intent.amount, fee, baseReserve);

  const maxTime = Math.floor(Date.now() / 1000) + ctx.options.timeoutSeconds;
  const scope = sequenceScope(ctx.ledgerId, sourceId);
  const reservations = [
    creationHold(ctx, creates, intent.reference, maxTime),
    sequenceReservation(ctx.deps.reservations, scope, async () => BigInt(account.sequence) + 1n, intent.reference),
  ] as const;
  return reserveAndBuild(ctx.deps.logger, reservations, ([, sequence]) => {
    // The builder adds one to the account's sequence, so it starts from the one before ours.
    const tx = new TransactionBuilder(new Account(sourceId, (sequence - 1n).toString()), {
      fee: fee.toString(),
      networkPassphrase: ctx.passphrase,
      timebounds: { minTime: 0, maxTime },
      memo,
    })
      .addOperation(op)
      .build();
    return singlePayloadWithdrawal({
      ...signingPayload(tx),
      signer: from,
      fee,
      state: stellarState.encode({ source: sourceId, sequence: sequence.toString(), scope, maxTime: String(maxTime), creates }),
      expiresAt: maxTime * 1000,
    });
  });
}

/**
 * Holds `account` (when the withdrawal creates one) for the withdrawal creating it until its
 * time bounds pass (plus a margin), or 409. Nothing to hold for a payment to an existing account.
 */
function creationHold(ctx: StellarContext, account: string | null, reference: string, maxTime: number): Reservation<string | null> {
  const scope = creationScope(ctx.ledgerId);
  const { reservations } = ctx.deps;
  return {
    label: `creation of ${account} in ${scope}`,
    take: async () => {
      if (!account) return null;
      const ttlMs = Math.max(maxTime * 1000 - Date.now(), 0) + 60_000;
      // Asked first so that a pending creation is not counted as a coin-claim conflict.
      const [holder] = await reservations.claimedBy(scope, [account]);
      if ((holder && holder !== reference) || !(await reservations.claim(scope, [account], reference, ttlMs))) {
        throw new ConflictError(
          `${account} does not exist yet and a pending withdrawal is creating it; send this one once that withdrawal is CONFIRMED (or has FAILED)`,
          'ERR_DESTINATION_PENDING',
        );
      }
      return account;
    },
    release: async (held) => (held ? reservations.release(scope, [held], reference) : undefined),
  };
}

/** Spendable = balance above the reserve and selling liabilities; the fee is always paid in XLM. */
function checkFunds(account: HorizonAccount, asset: Asset, amount: bigint, fee: bigint, baseReserve: bigint): void {
  const native = findBalance(account, Asset.native());
  const subentries = BigInt(account.subentry_count) + BigInt(account.num_sponsoring ?? 0) - BigInt(account.num_sponsored ?? 0);
  const reserve = (2n + subentries) * baseReserve;
  const spendableXlm = parseStroops(native?.balance ?? '0') - reserve - parseStroops(native?.selling_liabilities ?? '0');
  const needXlm = asset.isNative() ? amount + fee : fee;
  if (spendableXlm < needXlm) {
    throw insufficientFunds(
      `${account.id} can spend ${xlm(spendableXlm > 0n ? spendableXlm : 0n)} XLM above its ${xlm(reserve)} XLM reserve; ` +
        `this withdrawal needs ${xlm(needXlm)} XLM${asset.isNative() ? ' including the fee' : ' for the fee'}`,
      {
        address: account.id,
        asset: NATIVE_ASSET,
        required: needXlm,
        available: spendableXlm,
        fee: { amount: fee, asset: NATIVE_ASSET },
        extra: { reserve: xlm(reserve) },
      },
    );
  }
  if (asset.isNative() || account.id === asset.getIssuer()) return;
  const line = findBalance(account, asset);
  const spendable = line ? parseStroops(line.balance) - parseStroops(line.selling_liabilities ?? '0') : 0n;
  if (spendable < amount) {
    throw insufficientFunds(`${account.id} holds ${xlm(spendable)} ${assetLabel(asset)}; this withdrawal needs ${xlm(amount)}`, {
      address: account.id,
      asset: { symbol: assetLabel(asset), decimals: STELLAR_DECIMALS },
      required: amount,
      available: spendable,
    });
  }
}

/** Gives the reserved sequence number and the creation hold back when the operation ends before broadcast. */
export async function release(ctx: StellarContext, unsigned: UnsignedWithdrawal, reference: string): Promise<void> {
  const state = stellarState.decode(unsigned.state);
  const { reservations } = ctx.deps;
  const held: HeldReservation[] = [
    { label: `sequence ${state.sequence} of ${state.scope}`, release: () => reservations.releaseSequence(state.scope, BigInt(state.sequence), reference) },
  ];
  const { creates } = state;
  if (creates)
    held.push({
      label: `creation of ${creates} in ${creationScope(ctx.ledgerId)}`,
      release: () => reservations.release(creationScope(ctx.ledgerId), [creates], reference),
    });
  await releaseAll(ctx.deps.logger, held);
}
