import { randomUUID } from 'node:crypto';
import { InvalidArgumentError, NotFoundError } from '../errors.js';
import { parseAmount } from '../ledger/amounts.js';
import type { LedgerAdaptor } from '../ledger/adaptor.js';
import { resolveAssets } from '../ledger/registry.js';
import { singleAddress, vaultAddresses, vaultSource } from '../vaults/vault-addresses.js';
import type { VaultStore } from '../vaults/vault-store.js';
import { failOperation } from './fail-operation.js';
import { newOperation, toStored, type Operation } from './operation.js';
import type { WithdrawalDeps } from './pipeline-deps.js';
import { signCallbackUrl } from '../api-base.js';

export interface WithdrawalInput {
  recipientAddress?: string;
  recipientVault?: string;
  asset?: string;
  amount: number | string;
  description: string;
  fee?: string;
  memo?: string;
}

async function recipientOf(adaptor: LedgerAdaptor, vaults: VaultStore, input: WithdrawalInput, gapLimit: number): Promise<string> {
  if (input.recipientVault) {
    const target = await vaults.find(input.recipientVault);
    if (!target) throw new InvalidArgumentError(`recipientVault '${input.recipientVault}' is not a registered vault`);
    if (target.ledgerId !== adaptor.ledgerId) {
      throw new InvalidArgumentError(`recipientVault '${input.recipientVault}' is on ledger ${target.ledgerId}, not ${adaptor.ledgerId}`);
    }
    const address = target.kind === 'single' ? singleAddress(adaptor, target).address : (await vaultAddresses(adaptor, target, gapLimit, vaults.addresses))[0]?.address;
    if (!address) throw new InvalidArgumentError(`recipientVault '${input.recipientVault}' has no address`);
    if (input.recipientAddress && input.recipientAddress !== address) {
      throw new InvalidArgumentError(`recipientAddress ${input.recipientAddress} is not the address of recipientVault '${input.recipientVault}' (${address})`);
    }
    return address;
  }
  const address = input.recipientAddress as string;
  if (!adaptor.isValidAddress(address)) {
    throw new InvalidArgumentError(`recipientAddress '${address}' is not a valid ${adaptor.ledgerId} address`, { field: 'recipientAddress' });
  }
  return address;
}

/**
 * Builds a withdrawal, stores it durably, then asks the custody service to sign it.
 * If the sign request fails, the operation ends FAILED and its reservations are returned.
 */
export async function createWithdrawal(
  deps: WithdrawalDeps,
  vaultId: string,
  input: WithdrawalInput,
  /** Fixed by the caller when it must know the id before the withdrawal exists (Idempotency-Key). */
  id: string = randomUUID(),
): Promise<Operation> {
  const vault = await deps.vaults.find(vaultId);
  if (!vault) throw new NotFoundError(`Vault '${vaultId}' is not registered`);
  const adaptor = deps.registry.get(vault.ledgerId);
  const [asset] = resolveAssets(adaptor, [input.asset ?? adaptor.nativeAsset.symbol]);
  if (!asset) throw new InvalidArgumentError('asset is required');
  const amount = parseAmount(input.amount, asset.decimals);
  const fee = input.fee ?? (adaptor.feeLevels()[0] as string);
  const gap = deps.config.bip44GapLimit;
  const recipientAddress = await recipientOf(adaptor, deps.vaults, input, gap);
  const source = await vaultSource(adaptor, vault, gap, deps.vaults.addresses);
  if (!adaptor.consolidates && source.addresses.some((a) => a.address === recipientAddress)) {
    throw new InvalidArgumentError(`recipientAddress is the vault itself: ${adaptor.ledgerId} withdrawals go to another address (only UTXO ledgers consolidate to their own)`);
  }

  const unsigned = await adaptor.craft(source, { reference: id, recipientAddress, asset, amount, fee, ...(input.memo ? { memo: input.memo } : {}) });
  const op = newOperation({
    id,
    vaultId,
    ledgerId: adaptor.ledgerId,
    request: {
      recipientAddress: input.recipientAddress ?? recipientAddress,
      ...(input.recipientVault ? { recipientVault: input.recipientVault } : {}),
      asset: asset.symbol,
      amount: String(input.amount),
      description: input.description,
      fee,
      ...(input.memo ? { memo: input.memo } : {}),
    },
    recipientAddress,
    unsigned: toStored(unsigned),
  });
  try {
    await deps.store.create(op);
  } catch (e) {
    await adaptor.release(unsigned, id).catch(() => undefined);
    throw e;
  }
  const callbackUrl = deps.config.publicUrl ? signCallbackUrl(deps.config.publicUrl, adaptor.ledgerId) : undefined;
  try {
    const { operationID } = await deps.custody.requestSign(vaultId, {
      description: input.description,
      dataToSign: unsigned.payloads.map((p) => p.digest),
      publicKeys: unsigned.payloads.map((p) => p.keyId),
      rawTransactions: unsigned.payloads.map((p) => p.preimage ?? ''),
      ledgerHashAlgorithm: unsigned.payloads[0]?.hashAlgorithm ?? 'NONE',
      ledger: adaptor.ledgerId.toUpperCase(),
      // A hint only: the receiver matches callbacks by the digests stored above.
      providerData: JSON.stringify({ reference: id, request: op.request, txs: unsigned.txs }),
      ...(callbackUrl ? { callbackUrl } : {}),
    });
    return await deps.store.linkCustodyId(op, operationID);
  } catch (e) {
    await failOperation(deps, op, `the custody service did not accept the sign request: ${(e as Error).message}`, ['EXECUTING']);
    throw e;
  }
}
