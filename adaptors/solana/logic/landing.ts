import { getCompiledTransactionMessageDecoder } from '@solana/kit';
import { SYSTEM_PROGRAM_ADDRESS } from '@solana-program/system';
import type { Commitment, RpcSignatureStatus, SolanaRpc } from '../network/rpc.js';
import { readNonceAccount } from './accounts.js';

/** What lets a transaction land: a durable nonce, or a recent blockhash (its last valid block height, when known). */
export type TxLifetime = { kind: 'nonce'; nonceAccount: string; nonce: string } | { kind: 'blockhash'; blockhash: string; lastValidBlockHeight?: number };

/**
 * Whether a transaction that a signature lookup did not find can still land:
 * - `landed`: a later lookup found it after all;
 * - `never`: proven. Its lifetime is over in a node's answer at slot N, read from the bank at
 *   `commitment` (the nonce account holds another nonce; the chain is past the blockhash's last
 *   valid height), so wherever it could have landed is at or before N, and a lookup answered at
 *   slot N or later (history searched) does not know the signature. Read at `finalized`, no fork
 *   can take the proof back;
 * - `can-land`: its lifetime still admits it (a dropped transaction: send it again);
 * - `unproven`: nothing decided, the nodes that answered do not agree (a lookup from a node
 *   behind the lifetime's answer, no nonce account in the answer): look again later. Never a
 *   failure: the transaction may have landed where that node has not got to yet.
 */
export type Landing =
  | { kind: 'landed'; status: RpcSignatureStatus }
  | { kind: 'never'; reason: string }
  | { kind: 'can-land'; reason: string }
  | { kind: 'unproven'; reason: string };

/** At `slot` the node's answer shows the lifetime over (`expired`), or not. */
interface LifetimeAt {
  slot: number;
  expired: boolean;
  what: string;
}

/** The only place that concludes a Solana transaction can never land (txStatus and broadcast both ask it). */
export async function landing(rpc: SolanaRpc, txid: string, lifetime: TxLifetime, commitment: Commitment = 'confirmed'): Promise<Landing> {
  const at = await lifetimeAt(rpc, lifetime, commitment);
  if ('unproven' in at) return { kind: 'unproven', reason: at.unproven };
  if (!at.expired) return { kind: 'can-land', reason: at.what };
  // Asked after the lifetime: from the same node, or one as far along, its answer is at least as late.
  const lookup = await rpc.getSignatureStatusAt(txid);
  if (lookup.value) return { kind: 'landed', status: lookup.value };
  if (lookup.slot < at.slot) {
    return {
      kind: 'unproven',
      reason: `${at.what} (answer at slot ${at.slot}), but the signature lookup that does not know it was answered at slot ${lookup.slot}, by a node behind that`,
    };
  }
  return { kind: 'never', reason: `${at.what} (answer at slot ${at.slot}; a signature lookup at slot ${lookup.slot} does not know it)` };
}

async function lifetimeAt(rpc: SolanaRpc, lifetime: TxLifetime, commitment: Commitment): Promise<LifetimeAt | { unproven: string }> {
  if (lifetime.kind === 'nonce') {
    const { slot, value } = await rpc.getAccountAt(lifetime.nonceAccount, commitment);
    // No nonce account in the answer (a node behind the one that created it) decides nothing.
    if (!value) return { unproven: `no nonce account ${lifetime.nonceAccount} in the answer at slot ${slot}` };
    const stored = readNonceAccount(value, lifetime.nonceAccount).nonce;
    return stored === lifetime.nonce
      ? { slot, expired: false, what: `the nonce account still holds its durable nonce at slot ${slot}` }
      : { slot, expired: true, what: `the durable nonce advanced without this transaction (${commitment})` };
  }
  if (lifetime.lastValidBlockHeight !== undefined) {
    // Slot and height of one bank: every block this transaction could be in is at or before that slot.
    const { absoluteSlot, blockHeight } = await rpc.getEpochInfo(commitment);
    return blockHeight > lifetime.lastValidBlockHeight
      ? {
          slot: absoluteSlot,
          expired: true,
          what: `its blockhash expired before it landed (block height ${blockHeight}, past ${lifetime.lastValidBlockHeight})`,
        }
      : { slot: absoluteSlot, expired: false, what: `its blockhash is valid up to block height ${lifetime.lastValidBlockHeight}, now ${blockHeight}` };
  }
  // Without the last valid height (broadcast has the signed bytes only): the node's word on the
  // blockhash. Weaker: a node behind the blockhash itself also calls it invalid.
  const { slot, value } = await rpc.isBlockhashValid(lifetime.blockhash, commitment);
  return value
    ? { slot, expired: false, what: `the blockhash is still valid at slot ${slot}` }
    : { slot, expired: true, what: 'its blockhash expired before it landed' };
}

/** The lifetime a signed transaction carries: a durable nonce when its first instruction advances one (as the runtime reads it). */
export function lifetimeOfMessage(messageBytes: Uint8Array): TxLifetime {
  const message = getCompiledTransactionMessageDecoder().decode(messageBytes);
  const token = message.lifetimeToken;
  if ('instructions' in message && 'staticAccounts' in message) {
    const first = message.instructions[0];
    const accounts = message.staticAccounts;
    const data = first?.data;
    const advances =
      first !== undefined &&
      accounts[first.programAddressIndex] === SYSTEM_PROGRAM_ADDRESS &&
      data !== undefined &&
      data.length >= 4 &&
      Buffer.from(data).readUInt32LE(0) === 4;
    const nonceAccount = advances ? accounts[first.accountIndices?.[0] ?? -1] : undefined;
    if (nonceAccount) return { kind: 'nonce', nonceAccount, nonce: token };
  }
  return { kind: 'blockhash', blockhash: token };
}
