import { Transaction } from 'bitcoinjs-lib';
import { InvalidArgumentError, UnavailableError } from '../../../src/platform/errors.js';
import { formatAmount } from '../../../src/ledger/amounts.js';
import { insufficientFunds } from '../../../src/ledger/insufficient-funds.js';
import type { SigningPayload, UnsignedWithdrawal, VaultSource, WithdrawalIntent } from '../../../src/ledger/adaptor.js';
import { publicKeyHex } from '../../../src/ledger/public-key.js';
import { buildOrRelease } from '../../../src/ledger/reserve-and-build.js';
import type { BtcContext } from '../context.js';
import { canonicalAddress, detectFormat, recipientScript } from './address.js';
import { dustThreshold } from './dust.js';
import { resolveFeeRate } from './fees.js';
import { inputPreimages } from './preimage.js';
import { chooseCoins, type Candidate, type Choice } from './coin-selection.js';
import { sha256d } from './sighash.js';
import { spendableUtxos } from './spendable.js';
import { bitcoinState, type BitcoinState } from './state.js';

/** BIP125 opt-in replace-by-fee: lets a stuck withdrawal be bumped later. */
const SEQUENCE_RBF = 0xfffffffd;
/** Rounds of select-then-claim before giving up when concurrent withdrawals keep taking the chosen coins. */
const CLAIM_ATTEMPTS = 10;

const outpoint = (u: { txid: string; vout: number }): string => `${u.txid}:${u.vout}`;

function vaultKeys(ctx: BtcContext, source: VaultSource): Map<string, { va: VaultSource['addresses'][number]; format: Candidate['format'] }> {
  const byAddress = new Map<string, { va: VaultSource['addresses'][number]; format: Candidate['format'] }>();
  for (const va of source.addresses) {
    const format = detectFormat(va.publicKey, va.address, ctx.network);
    if (!format) throw new InvalidArgumentError(`vault address ${va.address} is not a p2wpkh, p2sh-p2wpkh or p2pkh address of its key`);
    byAddress.set(va.address, { va, format });
  }
  return byAddress;
}

/**
 * Builds a one-recipient withdrawal within `maxInputs` and the standard transaction size (a
 * consolidation when the recipient is the vault's own address): selects coins from every
 * vault address, claims them in Redis all-or-nothing under `intent.reference` (retrying
 * selection when another withdrawal got there first), and returns the unsigned transaction
 * with one payload per input.
 */
export async function craft(ctx: BtcContext, source: VaultSource, intent: WithdrawalIntent): Promise<UnsignedWithdrawal> {
  if (intent.asset.symbol !== ctx.nativeAsset.symbol) throw new InvalidArgumentError(`Bitcoin ledgers send only BTC, not ${intent.asset.symbol}`);
  const toScript = recipientScript(intent.recipientAddress, ctx.network);
  if (!toScript) throw new InvalidArgumentError(`'${intent.recipientAddress}' is not a valid ${ctx.networkName} address`);
  const changeScript = recipientScript(source.changeAddress, ctx.network);
  if (!changeScript) throw new InvalidArgumentError(`change address '${source.changeAddress}' is not a valid ${ctx.networkName} address`);
  if (intent.amount < dustThreshold(toScript)) {
    const dust = dustThreshold(toScript);
    throw new InvalidArgumentError(
      `amount ${formatAmount(intent.amount, ctx.nativeAsset.decimals)} BTC is below the dust threshold ${formatAmount(dust, ctx.nativeAsset.decimals)} BTC of this recipient`,
      { field: 'amount', dustThreshold: formatAmount(dust, ctx.nativeAsset.decimals), dustThresholdBaseUnits: String(dust) },
    );
  }
  const keys = vaultKeys(ctx, source);
  if (keys.size === 0) throw new InvalidArgumentError('the vault has no address to spend from');
  const feeRate = await resolveFeeRate(ctx, intent.fee);
  const { reservations } = ctx.deps;
  const scope = ctx.reservationScope;
  // A withdrawal to one of the vault's own addresses consolidates its coins (coin-selection.ts).
  // Compared in canonical form: a bech32 address in upper case pays the same script.
  const recipient = canonicalAddress(intent.recipientAddress, ctx.network);
  const toSelf = [...keys.keys(), source.changeAddress].some((a) => canonicalAddress(a, ctx.network) === recipient);

  // One vault's crafts in this process take turns at choosing and claiming: side by side, 64
  // concurrent withdrawals chose the same coins from the same listing, and up to a fifth gave up
  // after CLAIM_ATTEMPTS rounds (503). Other processes' claims are still met by the loop.
  const { sel, items } = await ctx.coinTurns.run(source.vaultId, async () => {
    for (let attempt = 1; attempt <= CLAIM_ATTEMPTS; attempt++) {
      const utxos = await spendableUtxos(ctx.backend, [...keys.keys()], [...keys.keys(), source.changeAddress]);
      const holders = await reservations.claimedBy(scope, utxos.map(outpoint));
      const free = utxos.filter((_, i) => holders[i] === null || holders[i] === intent.reference);
      const candidates = free.map((utxo) => ({ utxo, format: (keys.get(utxo.address) as { format: Candidate['format'] }).format }));
      const sel = chooseCoins(candidates, { script: toScript, amount: intent.amount }, changeScript, feeRate, toSelf, ctx.options.maxInputs);
      if (!sel.ok) {
        const sum = (coins: { value: bigint }[]) => coins.reduce((s, u) => s + u.value, 0n);
        const reserved = sum(utxos) - sum(free);
        // Free coins whose input costs more than they hold at this rate: not spendable, not counted in `available`.
        const notWorthSpending = sum(free) - sel.available;
        const btc = (sat: bigint): string => `${formatAmount(sat, ctx.nativeAsset.decimals)} BTC`;
        throw insufficientFunds(
          `needs ${btc(intent.amount + sel.fee)} (amount ${btc(intent.amount)} + fee ${btc(sel.fee)} at ${feeRate} sat/vB), ${btc(sel.available)} available`,
          {
            asset: ctx.nativeAsset,
            required: intent.amount + sel.fee,
            available: sel.available,
            fee: { amount: sel.fee, asset: ctx.nativeAsset },
            extra: {
              reservedByOtherWithdrawals: formatAmount(reserved, ctx.nativeAsset.decimals),
              notWorthSpending: formatAmount(notWorthSpending, ctx.nativeAsset.decimals),
              feeRate,
            },
          },
        );
      }
      const items = sel.inputs.map((c) => outpoint(c.utxo));
      if (await reservations.claim(scope, items, intent.reference, Math.max(ctx.options.reservationTtlMs, ctx.deps.minReservationMs ?? 0))) {
        return { sel, items };
      }
      ctx.deps.logger.debug({ ledgerId: ctx.ledgerId, attempt }, 'coins taken by a concurrent withdrawal; selecting again');
      await new Promise((r) => setTimeout(r, 5 + Math.random() * 40));
    }
    throw new UnavailableError(`could not reserve coins after ${CLAIM_ATTEMPTS} attempts: too many concurrent withdrawals from this vault`);
  });
  const held = { label: `${items.length} coin(s) of ${scope}`, release: () => reservations.release(scope, items, intent.reference) };
  return buildOrRelease(ctx.deps.logger, [held], () => build(ctx, sel, keys, intent, source.changeAddress, feeRate, items));
}

function build(
  ctx: BtcContext,
  { inputs, send, toSelf, change, fee }: Extract<Choice, { ok: true }>,
  keys: ReturnType<typeof vaultKeys>,
  intent: WithdrawalIntent,
  changeAddress: string,
  feeRate: number,
  reserved: string[],
): UnsignedWithdrawal {
  // A consolidation's one output is the vault's own: a speed-up may take its fee from it.
  const outputs: BitcoinState['outputs'] = [{ address: intent.recipientAddress, value: send.toString(), change: toSelf }];
  if (change > 0n) outputs.push({ address: changeAddress, value: change.toString(), change: true });
  const state: BitcoinState = {
    v: 1,
    ledgerId: ctx.ledgerId,
    feeRate,
    inputs: inputs.map(({ utxo, format }) => {
      const { va } = keys.get(utxo.address) as { va: VaultSource['addresses'][number] };
      return {
        txid: utxo.txid,
        vout: utxo.vout,
        value: utxo.value.toString(),
        address: utxo.address,
        format,
        publicKey: publicKeyHex(va.publicKey),
        keyId: va.keyId,
        ...(utxo.parentInputs ? { parentInputs: utxo.parentInputs } : {}),
      };
    }),
    outputs,
    reserved,
  };
  return unsignedFromState(ctx, state, fee);
}

/** The unsigned transaction a craft state describes, with one signing payload per input. */
export function unsignedFromState(ctx: BtcContext, state: BitcoinState, fee: bigint): UnsignedWithdrawal {
  const tx = unsignedTx(ctx, state);
  const preimages = inputPreimages(tx, state.inputs);
  const payloads: SigningPayload[] = state.inputs.map((input, i) => {
    const preimage = preimages[i] as Buffer;
    return {
      digest: sha256d(preimage).toString('hex'),
      keyId: input.keyId,
      publicKey: input.publicKey,
      preimage: preimage.toString('hex'),
      hashAlgorithm: 'DOUBLE_SHA256',
      txIndex: 0,
      inputIndex: i,
    };
  });
  return { txs: [{ serialized: tx.toHex() }], payloads, fee, state: bitcoinState.encode(state) };
}

/** Version 2, locktime 0, inputs signalling RBF, recipient first and change last. */
export function unsignedTx(ctx: BtcContext, state: BitcoinState): Transaction {
  const tx = new Transaction();
  tx.version = 2;
  for (const i of state.inputs) tx.addInput(Buffer.from(i.txid, 'hex').reverse(), i.vout, SEQUENCE_RBF);
  for (const o of state.outputs) {
    const script = recipientScript(o.address, ctx.network);
    if (!script) throw new InvalidArgumentError(`'${o.address}' is not a valid ${ctx.networkName} address`);
    tx.addOutput(script, BigInt(o.value));
  }
  return tx;
}

export async function release(ctx: BtcContext, unsigned: UnsignedWithdrawal, reference: string): Promise<void> {
  const state = bitcoinState.decode(unsigned.state, { ledgerId: ctx.ledgerId });
  await ctx.deps.reservations.release(ctx.reservationScope, state.reserved, reference);
}
