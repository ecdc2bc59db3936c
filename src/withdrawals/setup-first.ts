import { randomUUID } from 'node:crypto';
import type { LedgerAdaptor, UnsignedWithdrawal, VaultSetup, WithdrawalIntent } from '../ledger/adaptor.js';
import { formatAmount, parseAmount } from '../ledger/amounts.js';
import { resolveAssets } from '../ledger/registry.js';
import { AppError, ConflictError, isAppError, isRetryable } from '../platform/errors.js';
import { vaultSource } from '../vaults/vault-addresses.js';
import { failOperation } from './fail-operation.js';
import { attemptsOf, newOperation, type Operation, type SetupMark, toStored, type WithdrawalRequestRecord } from './model/operation.js';
import type { WithdrawalDeps } from './pipeline-deps.js';
import { requestSignature } from './request-sign.js';
import type { IdempotencyClaim } from './store/idempotency.js';

/** What a withdrawal that waits for its vault's setup holds instead of a crafted transaction: nothing to sign, nothing claimed. */
const NOTHING_CRAFTED = { txs: [], payloads: [], fee: '0', state: null };

/** Conflicts that pass on their own (another withdrawal of the vault holds its durable nonce): the next look crafts. */
const PASSING_CONFLICTS: ReadonlySet<string> = new Set(['ERR_NONCE_IN_USE']);

/** The withdrawal being made, as create-withdrawal.ts resolved it, without its crafted transaction. */
export interface PendingWithdrawal {
  fields: Pick<Operation, 'id' | 'vaultId' | 'ledgerId' | 'request' | 'recipientAddress'>;
  setup: VaultSetup;
  claim?: IdempotencyClaim;
}

/** Makes a withdrawal of the service's own (the setup): create-withdrawal.ts, passed in. */
export type MakeSetup = (input: { recipientAddress: string; asset: string; amount: string; description: string }, setupId: string) => Promise<Operation>;

/**
 * A vault that needs its one-time setup before a withdrawal can be crafted (a Solana vault's
 * durable-nonce account): the service makes the setup as a withdrawal of its own (its own sign
 * request, fee and amount, listed with the vault's withdrawals, `setupFor` naming this one), then
 * stores this withdrawal EXECUTING with `setup` and nothing crafted. Once the setup is CONFIRMED
 * (the confirm job says so at once; reconciliation looks again), `continueAfterSetup` crafts it
 * and sends it to be signed; a setup that FAILED fails it with the reason.
 *
 * The setup goes first: a vault that cannot pay it is refused here, before anything of this
 * withdrawal is stored; a setup whose withdrawal was never stored (a crash in between) still
 * makes the account, which the next withdrawal finds.
 */
export async function withSetupFirst(deps: WithdrawalDeps, adaptor: LedgerAdaptor, w: PendingWithdrawal, makeSetup: MakeSetup): Promise<Operation> {
  const { setup } = w;
  const native = adaptor.nativeAsset;
  const setupOp = await makeSetup(
    {
      recipientAddress: setup.recipientAddress,
      asset: native.symbol,
      amount: formatAmount(setup.amount, native.decimals),
      description: `${setup.kind} setup for withdrawal ${w.fields.id}: ${setup.why}`,
    },
    randomUUID(),
  ).catch((e: unknown) => {
    if (!isAppError(e)) throw e;
    // Said as what it is: the refusal is of the setup this withdrawal needs, not of the withdrawal.
    const first = `the vault's first withdrawal needs its ${setup.kind} setup (${formatAmount(setup.amount, native.decimals)} ${native.symbol} to ${setup.recipientAddress}, ${setup.why}), which was refused: `;
    throw new AppError(e.status, e.errCode, e.title, first + e.details, e.retryable, { fields: { ...e.fields, setup: setup.kind }, cause: e });
  });
  const mark: SetupMark = {
    kind: setup.kind,
    withdrawalId: setupOp.id,
    recipientAddress: setup.recipientAddress,
    amount: setup.amount.toString(),
    status: 'waiting',
  };
  const op: Operation = { ...newOperation({ ...w.fields, unsigned: NOTHING_CRAFTED }), setup: mark };
  await deps.store.create(op, w.claim);
  deps.logger.info({ withdrawalId: op.id, setupWithdrawalId: setupOp.id, kind: setup.kind }, 'withdrawal waits for its vault setup');
  // The setup may have been confirmed (or failed) before this withdrawal was stored: nobody else would see it.
  return (await continueAfterSetup(deps, op.id)) ?? op;
}

/** The intent a stored withdrawal request stands for, as create-withdrawal.ts resolved it. */
function intentOf(adaptor: LedgerAdaptor, op: Operation): WithdrawalIntent {
  const r: WithdrawalRequestRecord = op.request;
  const asset = resolveAssets(adaptor, [r.asset])[0] as WithdrawalIntent['asset'];
  return {
    reference: op.id,
    recipientAddress: op.recipientAddress,
    asset,
    amount: parseAmount(r.amount, asset.decimals),
    fee: r.fee,
    ...(r.memo ? { memo: r.memo } : {}),
    ...(r.allowOffCurveRecipient ? { allowOffCurveRecipient: true } : {}),
  };
}

/** The setup's fee and transaction, from the attempt that landed. */
function doneMark(mark: SetupMark, setupOp: Operation): SetupMark {
  const landed = attemptsOf(setupOp).find((a) => a.status === 'confirmed');
  return { ...mark, status: 'done', fee: landed?.fee ?? setupOp.unsigned.fee, txids: setupOp.txids };
}

/**
 * One look at a withdrawal waiting for its vault's setup: nothing while the setup is open;
 * FAILED when the setup failed; crafted, stored and sent to be signed once it is CONFIRMED. Safe
 * to run from anywhere at once (the creation, the confirm job, reconciliation): the crafted
 * transaction is stored by a compare-and-set, and a look that loses gives its claims back.
 * Returns the withdrawal as it stands after the look (undefined when it is not stored).
 */
export async function continueAfterSetup(deps: WithdrawalDeps, id: string): Promise<Operation | undefined> {
  const op = await deps.store.find(id);
  const mark = op?.setup;
  if (!op || !mark || op.status !== 'EXECUTING' || mark.status !== 'waiting') return op;
  const setupOp = await deps.store.find(mark.withdrawalId);
  if (!setupOp || setupOp.status === 'FAILED') {
    const why = setupOp
      ? `its vault's ${mark.kind} setup (withdrawal ${mark.withdrawalId}) failed: ${setupOp.failureReason ?? 'no reason given'}`
      : `its vault's ${mark.kind} setup (withdrawal ${mark.withdrawalId}) is not stored`;
    await failOperation(deps, op, why, ['EXECUTING'], { setup: { ...mark, status: 'failed' } });
    return deps.store.get(id);
  }
  if (setupOp.status !== 'CONFIRMED') return op;

  const adaptor = deps.registry.get(op.ledgerId);
  const vault = await deps.vaults.find(op.vaultId);
  if (!vault) {
    await failOperation(deps, op, `vault ${op.vaultId} is no longer registered`, ['EXECUTING']);
    return deps.store.get(id);
  }
  let unsigned: UnsignedWithdrawal;
  try {
    unsigned = await adaptor.craft(await vaultSource(adaptor, vault, deps.config.bip44GapLimit, deps.vaults.addresses), intentOf(adaptor, op));
  } catch (e) {
    if (!isAppError(e) || isRetryable(e) || PASSING_CONFLICTS.has(e.errCode)) throw e;
    // What a new withdrawal would be refused for (funds spent meanwhile, a recipient the ledger refuses): final.
    await failOperation(deps, op, `crafted after its vault's ${mark.kind} setup, it was refused: ${e.details}`, ['EXECUTING'], {
      setup: doneMark(mark, setupOp),
    });
    return deps.store.get(id);
  }
  const at = new Date().toISOString();
  let stored: Operation;
  try {
    stored = await deps.store.update(id, (current) => {
      if (current.status !== 'EXECUTING' || current.setup?.status !== 'waiting') throw new ConflictError(`withdrawal ${id} moved on`, 'ERR_MOVED_ON');
      return {
        ...current,
        unsigned: toStored(unsigned),
        setup: doneMark(mark, setupOp),
        history: [
          ...current.history,
          { status: 'EXECUTING', at, detail: `vault ${mark.kind} setup ${mark.withdrawalId} confirmed: crafted and sent to be signed` },
        ],
      };
    });
  } catch (e) {
    await adaptor.release(unsigned, id).catch((err: unknown) => deps.logger.error({ err, withdrawalId: id }, 'could not release a craft that was not stored'));
    if (isAppError(e) && e.errCode === 'ERR_MOVED_ON') return deps.store.get(id);
    throw e;
  }
  // Indexed before the sign request goes out, so even an instant callback finds it.
  await deps.store.indexAttempt(
    id,
    unsigned.payloads.map((p) => p.digest),
  );
  return requestSignature(deps, adaptor, stored, unsigned);
}
