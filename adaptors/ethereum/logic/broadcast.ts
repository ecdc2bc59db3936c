import { keccak256, Transaction } from 'ethers';
import { InvalidArgumentError, PermanentLedgerError, UpstreamError } from '../../../src/errors.js';
import type { BroadcastResult, SignedTx } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { JsonRpcError } from '../network/json-rpc.js';
import { nonceScope } from './tx-state.js';

// Node messages differ by client (geth, Erigon, Nethermind, Besu, anvil); match loosely.
const ALREADY_KNOWN = /already known|known transaction|alreadyknown|already imported|already in (?:the )?(?:mempool|pool)/i;
const NONCE_TAKEN = /nonce too low|noncetoolow|replacement transaction underpriced|already used/i;
const NO_FUNDS = /insufficient funds/i;
// The signed fee cannot change, but the base fee can fall back under it: worth retrying.
const FEE_TOO_LOW = /less than (?:the )?block base fee|transaction underpriced|feetoolow|fee cap/i;

async function knownToNode(ctx: EthContext, txid: string): Promise<boolean> {
  return (await ctx.rpc.call<unknown>('eth_getTransactionByHash', [txid])) !== null;
}

/**
 * `eth_sendRawTransaction`. A node that already has this exact transaction (mempool or chain)
 * is success with `alreadyKnown`, so a retried job after a lost answer does not fail. Network
 * trouble stays the client's retryable UnavailableError. Once accepted the nonce is settled
 * and can no longer be handed out again.
 */
export async function broadcast(ctx: EthContext, signed: SignedTx): Promise<BroadcastResult> {
  const raw = signed.serialized.startsWith('0x') ? signed.serialized : `0x${signed.serialized}`;
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch (e) {
    throw new InvalidArgumentError(`not a signed Ethereum transaction: ${(e as Error).message}`);
  }
  const txid = keccak256(raw);
  const from = tx.from;
  if (!from || txid.toLowerCase() !== signed.txid.toLowerCase()) {
    throw new InvalidArgumentError(`signed transaction does not match txid ${signed.txid}`);
  }

  let alreadyKnown = false;
  try {
    await ctx.rpc.call<string>('eth_sendRawTransaction', [raw]);
  } catch (e) {
    if (!(e instanceof JsonRpcError)) throw e;
    const msg = e.rpcMessage;
    if (ALREADY_KNOWN.test(msg)) {
      alreadyKnown = true;
    } else if (NONCE_TAKEN.test(msg)) {
      if (!(await knownToNode(ctx, txid))) {
        throw new PermanentLedgerError(`nonce ${tx.nonce} of ${from} is used by another transaction (${msg})`, 'ERR_NONCE_TAKEN');
      }
      alreadyKnown = true;
    } else if (NO_FUNDS.test(msg)) {
      throw new PermanentLedgerError(`${from} cannot pay for the transaction: ${msg}`, 'ERR_INSUFFICIENT_FUNDS');
    } else if (FEE_TOO_LOW.test(msg)) {
      throw new UpstreamError(`the node does not accept the signed fee now: ${msg}`, true, e, 'ERR_FEE_TOO_LOW');
    } else {
      throw e;
    }
  }
  await ctx.deps.reservations.settleSequence(nonceScope(ctx, from), BigInt(tx.nonce));
  return { txid, alreadyKnown };
}
