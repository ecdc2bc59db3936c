import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, NotFoundError } from '../platform/errors.js';
import { parseAmount } from '../ledger/amounts.js';
import type { AssetInfo, LedgerAdaptor, VaultAddress } from '../ledger/adaptor.js';
import { ALL_ASSETS, resolveAssets } from '../ledger/registry.js';
import { singleAddress, vaultAddresses, vaultSource } from '../vaults/vault-addresses.js';
import type { VaultStore } from '../vaults/vault-store.js';
import type { IdempotencyClaim } from './store/idempotency.js';
import { newOperation, toStored, type Operation } from './model/operation.js';
import type { WithdrawalDeps } from './pipeline-deps.js';
import { requestSignature } from './request-sign.js';
import { withSetupFirst } from './setup-first.js';

export interface WithdrawalInput {
  recipientAddress?: string;
  recipientVault?: string;
  asset?: string;
  amount: number | string;
  description: string;
  fee?: string;
  memo?: string;
  allowOffCurveRecipient?: boolean;
}

async function recipientOf(adaptor: LedgerAdaptor, vaults: VaultStore, input: WithdrawalInput, gapLimit: number): Promise<string> {
  if (input.recipientVault) {
    const target = await vaults.find(input.recipientVault);
    if (!target) throw new InvalidArgumentError(`recipientVault '${input.recipientVault}' is not a registered vault`);
    if (target.ledgerId !== adaptor.ledgerId) {
      throw new InvalidArgumentError(`recipientVault '${input.recipientVault}' is on ledger ${target.ledgerId}, not ${adaptor.ledgerId}`);
    }
    const address =
      target.kind === 'single' ? singleAddress(adaptor, target).address : (await vaultAddresses(adaptor, target, gapLimit, vaults.addresses))[0]?.address;
    if (!address) throw new InvalidArgumentError(`recipientVault '${input.recipientVault}' has no address`);
    const spelled = input.recipientAddress;
    if (spelled === undefined || spelled === address) return address;
    // Another spelling of the same account (an Ethereum address in lower case, a Stellar
    // `G…?memo=`) pays the vault: kept as written, so a memo it carries is not lost.
    const canonical = (a: string): string => adaptor.canonicalAddress?.(a) ?? a;
    if (!adaptor.isValidAddress(spelled) || canonical(spelled) !== canonical(address)) {
      throw new InvalidArgumentError(`recipientAddress ${spelled} is not the address of recipientVault '${input.recipientVault}' (${address})`, {
        field: 'recipientAddress',
      });
    }
    return spelled;
  }
  const address = input.recipientAddress as string;
  if (!adaptor.isValidAddress(address)) {
    throw new InvalidArgumentError(`recipientAddress '${address}' is not a valid ${adaptor.ledgerId} address`, { field: 'recipientAddress' });
  }
  return address;
}

/**
 * The one asset a withdrawal sends. `*` means every asset to a balance query; a withdrawal
 * cannot send that, so it is refused (and not listed among the valid values) like any unknown symbol.
 */
function withdrawalAsset(adaptor: LedgerAdaptor, symbol: string | undefined): AssetInfo {
  if (symbol === undefined) return adaptor.nativeAsset;
  if (symbol !== ALL_ASSETS) {
    try {
      return resolveAssets(adaptor, [symbol])[0] as AssetInfo;
    } catch (e) {
      // Refused below again: the balance query's refusal offers `*` among the valid values.
      if (!(e instanceof InvalidArgumentError)) throw e;
    }
  }
  const valid = adaptor.assets().map((a) => a.symbol);
  throw new InvalidArgumentError(`Unknown asset '${symbol}' for ledger ${adaptor.ledgerId}: a withdrawal sends one asset. Valid values: ${valid.join(', ')}`, {
    field: 'asset',
    valid,
  });
}

/** A memo the ledger cannot carry would be dropped, and a deposit that needs it lost: refused instead. */
function checkMemo(adaptor: LedgerAdaptor, memo: string | undefined): void {
  if (memo && !adaptor.carriesMemo) {
    throw new InvalidArgumentError(`${adaptor.ledgerId} transactions carry no memo; send the withdrawal without one`, { field: 'memo' });
  }
}

/**
 * On an account ledger a withdrawal to the vault's own account would only burn a fee (and be
 * CONFIRMED as if paid out): refused. Compared in the ledger's canonical form, since one
 * account has several spellings (an Ethereum address in any case, a Stellar `M…` or `G…?memo=`).
 */
function checkNotToItself(adaptor: LedgerAdaptor, own: VaultAddress[], recipientAddress: string): void {
  if (adaptor.consolidates) return;
  const canonical = (address: string): string => adaptor.canonicalAddress?.(address) ?? address;
  const account = canonical(recipientAddress);
  if (!own.some((a) => canonical(a.address) === account)) return;
  const spelled = account === recipientAddress ? '' : ` (${recipientAddress} pays ${account})`;
  throw new InvalidArgumentError(
    `recipientAddress is the vault itself${spelled}: ${adaptor.ledgerId} withdrawals go to another account (only UTXO ledgers consolidate to their own)`,
    { field: 'recipientAddress' },
  );
}

/** How a withdrawal comes to be made: by a client, or by the service as a vault's setup. */
export interface CreateOptions {
  /** The Idempotency-Key claim the request must still hold when the withdrawal is stored. */
  claim?: IdempotencyClaim;
  /** Made by the service as the vault's one-time setup for withdrawal `setupFor` (which waits for it). */
  setupFor?: string;
}

/**
 * Builds a withdrawal, stores it durably, then asks the custody service to sign it.
 * If the sign request fails, the operation ends FAILED and its reservations are returned.
 * If the operation ended meanwhile, the sign operation the request made is canceled.
 * A vault that needs its one-time setup first (`LedgerAdaptor.vaultSetup`) gets it as a
 * withdrawal of its own, and this one waits for it, uncrafted (setup-first.ts).
 */
export async function createWithdrawal(
  deps: WithdrawalDeps,
  vaultId: string,
  input: WithdrawalInput,
  /** Fixed by the caller when it must know the id before the withdrawal exists (Idempotency-Key). */
  id: string = randomUUID(),
  opts: CreateOptions = {},
): Promise<Operation> {
  const vault = await deps.vaults.find(vaultId);
  if (!vault) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
  const adaptor = deps.registry.get(vault.ledgerId);
  const asset = withdrawalAsset(adaptor, input.asset);
  const amount = parseAmount(input.amount, asset.decimals);
  checkMemo(adaptor, input.memo);
  const fee = input.fee ?? (adaptor.feeLevels()[0] as string);
  const gap = deps.config.bip44GapLimit;
  const recipientAddress = await recipientOf(adaptor, deps.vaults, input, gap);
  const source = await vaultSource(adaptor, vault, gap, deps.vaults.addresses);
  checkNotToItself(adaptor, source.addresses, recipientAddress);

  const allowOffCurve = input.allowOffCurveRecipient === true ? { allowOffCurveRecipient: true } : {};
  const request = {
    recipientAddress: input.recipientAddress ?? recipientAddress,
    ...(input.recipientVault ? { recipientVault: input.recipientVault } : {}),
    asset: asset.symbol,
    amount: String(input.amount),
    description: input.description,
    fee,
    ...(input.memo ? { memo: input.memo } : {}),
    ...allowOffCurve,
  };
  const fields = { id, vaultId, ledgerId: adaptor.ledgerId, request, recipientAddress, ...(opts.setupFor ? { setupFor: opts.setupFor } : {}) };

  const setup = opts.setupFor ? undefined : await adaptor.vaultSetup?.(source);
  // A withdrawal to the setup's own address is the setup, asked for by hand.
  if (setup && setup.recipientAddress !== recipientAddress) {
    return withSetupFirst(deps, adaptor, { fields, setup, claim: opts.claim }, (setupInput, setupId) =>
      createWithdrawal(deps, vaultId, setupInput, setupId, { setupFor: id }),
    );
  }

  const unsigned = await adaptor.craft(source, {
    reference: id,
    recipientAddress,
    asset,
    amount,
    fee,
    ...(input.memo ? { memo: input.memo } : {}),
    ...allowOffCurve,
  });
  const op = newOperation({ ...fields, unsigned: toStored(unsigned) });
  try {
    await deps.store.create(op, opts.claim);
  } catch (e) {
    // A release lost here too does not hold for good: a nonce or sequence number is taken back
    // by the account's next reservation after a grace period (ledger/reservations.ts); claimed
    // coins and durable nonces stay held until their claim expires.
    await adaptor.release(unsigned, id).catch((err: unknown) => {
      deps.logger.error({ err, withdrawalId: id, cause: e }, 'could not release the reservations of a withdrawal that was not stored');
    });
    throw e;
  }
  return requestSignature(deps, adaptor, op, unsigned);
}
