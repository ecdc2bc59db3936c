import { keccak256, Transaction } from 'ethers';
import { InvalidArgumentError, NodeRejectionError, UnavailableError } from '../../../src/platform/errors.js';
import type { BroadcastResult, SendOutcome, SignedTx } from '../../../src/ledger/adaptor.js';
import type { EthContext } from '../context.js';
import { ethRejection } from '../network/errors.js';
import { JsonRpcError, type Settled } from '../network/json-rpc.js';
import { senderOf } from './address.js';
import { nonceScope, nonceUse, unprovenNonce } from './nonce.js';

/** The sender and nonce of signed bytes from anywhere, checked against the txid they came with. */
function parseSigned(raw: string, expectedTxid: string): { txid: string; from: string; nonce: number } {
  let tx: Transaction;
  try {
    tx = Transaction.from(raw);
  } catch (e) {
    throw new InvalidArgumentError(`not a signed Ethereum transaction: ${(e as Error).message}`);
  }
  const txid = keccak256(raw);
  const from = senderOf(tx);
  if (!from || txid.toLowerCase() !== expectedTxid.toLowerCase()) {
    throw new InvalidArgumentError(`signed transaction does not match txid ${expectedTxid}`);
  }
  return { txid, from, nonce: tx.nonce };
}

/** The chain id signed into raw bytes (undefined for a legacy transaction without one). */
function chainIdOf(raw: string): number | undefined {
  const id = Transaction.from(raw).chainId;
  return id === 0n ? undefined : Number(id);
}

/** A transaction about to go out: its raw bytes, who sends it, under which number. */
interface Outgoing {
  raw: string;
  txid: string;
  from: string;
  nonce: number;
}

function outgoing(ctx: EthContext, signed: SignedTx): Outgoing {
  const raw = signed.serialized.startsWith('0x') ? signed.serialized : `0x${signed.serialized}`;
  return { raw, ...(ctx.assembled.find(signed.txid, raw) ?? parseSigned(raw, signed.txid)) };
}

/**
 * Whether the node has `tx` (pool or chain), asked after it refused the number. A lookup that
 * fails (an index still being built, a rate limit) leaves the question open: the send is
 * retried and the node asked again, never taken as a refusal of a transaction that may be in.
 */
async function knownToNode(ctx: EthContext, tx: Outgoing, refusal: string): Promise<boolean> {
  try {
    return (await ctx.rpc.call<unknown>('eth_getTransactionByHash', [tx.txid])) !== null;
  } catch (e) {
    throw new UnavailableError(
      `${ctx.ledgerId} node refused nonce ${tx.nonce} of ${tx.from} (${refusal}) and could not tell whether it holds ${tx.txid}: ${(e as Error).message}`,
      e,
      'ERR_NODE_UNAVAILABLE',
    );
  }
}

/**
 * What the node's answer to one `eth_sendRawTransaction` means. A node that already has this
 * exact transaction (mempool or chain) is success with `alreadyKnown`, so a retried job after a
 * lost answer does not fail; "nonce too low" is ours already in, or another transaction holding
 * the number (the node tells which).
 */
async function answered(ctx: EthContext, tx: Outgoing, answer: Settled<unknown>): Promise<BroadcastResult> {
  if (answer.ok) return { txid: tx.txid, alreadyKnown: false };
  const e = answer.error;
  if (!(e instanceof JsonRpcError)) throw e;
  const rejection = ethRejection(e.rpcMessage, e.rpcCode, `${ctx.ledgerId} node refused nonce ${tx.nonce} of ${tx.from}`, ctx.rpc.node);
  if (rejection.kind === 'already_known') return { txid: tx.txid, alreadyKnown: true };
  if (rejection.kind === 'wrong_chain' && chainIdOf(tx.raw) === ctx.chainId) {
    // The bytes carry this ledger's chain id: it is the node that is on another chain.
    throw new NodeRejectionError(
      'wrong_chain',
      `${rejection.details} (the transaction is signed for chain ${ctx.chainId}: the node is not)`,
      false,
      rejection.fields,
    );
  }
  if (rejection.kind === 'nonce_too_low' || rejection.kind === 'replacement_underpriced') {
    if (await knownToNode(ctx, tx, e.rpcMessage)) return { txid: tx.txid, alreadyKnown: true };
    // Not known by hash to the node that answered the lookup, which may lag behind the one that
    // refused the send: only the block that used the nonce proves it is another transaction's.
    const use = await nonceUse(ctx, tx.from, BigInt(tx.nonce));
    if (use.kind === 'used' && use.hash.toLowerCase() === tx.txid.toLowerCase()) return { txid: tx.txid, alreadyKnown: true };
    if (use.kind !== 'used') throw unprovenNonce(ctx, tx.txid, use);
    // Not invalidForever: the block of the other transaction may still leave the chain; tx-status proves it at depth.
    throw new NodeRejectionError('nonce_taken', `nonce ${tx.nonce} of ${tx.from} is used by transaction ${use.hash} (${e.rpcMessage})`, false, {
      node: ctx.rpc.node,
    });
  }
  throw rejection;
}

/** One round trip: the transactions in order as one JSON-RPC batch; the numbers the node took are settled. */
async function sendBatch(ctx: EthContext, txs: Outgoing[]): Promise<SendOutcome[]> {
  const answers = await ctx.rpc.settle(txs.map((t) => ({ method: 'eth_sendRawTransaction', params: [t.raw] })));
  const outcomes = await Promise.all(
    txs.map((t, i) =>
      answered(ctx, t, answers[i] as Settled<unknown>).then(
        (result): SendOutcome => ({ ok: true, result }),
        (error: unknown): SendOutcome => ({ ok: false, error }),
      ),
    ),
  );
  // Once accepted a nonce can no longer be handed out again.
  const taken = new Map<string, bigint[]>();
  outcomes.forEach((o, i) => {
    if (!o.ok) return;
    const t = txs[i] as Outgoing;
    const scope = nonceScope(ctx, t.from);
    taken.set(scope, [...(taken.get(scope) ?? []), BigInt(t.nonce)]);
  });
  await Promise.all([...taken].map(([scope, nonces]) => ctx.deps.reservations.settleSequences(scope, nonces)));
  return outcomes;
}

/** Whether the node refused `txs[i]` as "nonce too high" although an earlier entry of the same account in the batch got through. */
function overtaken(txs: Outgoing[], outcomes: SendOutcome[], i: number): boolean {
  const o = outcomes[i] as SendOutcome;
  if (o.ok || !(o.error instanceof NodeRejectionError) || o.error.kind !== 'nonce_too_high') return false;
  const from = (txs[i] as Outgoing).from.toLowerCase();
  return txs.some((t, j) => j < i && (outcomes[j] as SendOutcome).ok && t.from.toLowerCase() === from);
}

/**
 * One batch, in order. Geth-family nodes run a batch's entries one after another; Hardhat runs
 * them at once, so a number can reach it before the one ahead of it in the same batch, and a
 * node that refuses gaps answers "nonce too high" although that number got in. Such entries go
 * again, in a batch of their own: the lowest of them now has its predecessor in, so every round
 * takes at least one, and the rounds stop when one takes none.
 */
async function sendOrdered(ctx: EthContext, txs: Outgoing[]): Promise<SendOutcome[]> {
  const outcomes = await sendBatch(ctx, txs);
  for (let round = 0; round < txs.length; round++) {
    const again = txs.flatMap((_, i) => (overtaken(txs, outcomes, i) ? [i] : []));
    if (again.length === 0) break;
    const answers = await sendBatch(
      ctx,
      again.map((i) => txs[i] as Outgoing),
    );
    again.forEach((i, k) => (outcomes[i] = answers[k] as SendOutcome));
    if (!answers.some((o) => o.ok)) break;
  }
  return outcomes;
}

/**
 * `eth_sendRawTransaction` for several transactions, `sendBatchSize` per JSON-RPC batch (taken
 * in order, see sendOrdered), each with its own answer. Bytes that cannot be read end the list
 * (nothing after them is sent: a gap would hold the rest); a batch whose round trip fails ends
 * it too, after the batches answered before it. Network trouble stays the client's retryable
 * UnavailableError. Bytes that combine assembled in this process (the same bytes under the same
 * txid) skip the parse and the key recovery (assembled.ts).
 */
export async function broadcastMany(ctx: EthContext, signed: SignedTx[]): Promise<SendOutcome[]> {
  const outcomes: SendOutcome[] = [];
  const txs: Outgoing[] = [];
  let unreadable: SendOutcome | undefined;
  for (const s of signed) {
    try {
      txs.push(outgoing(ctx, s));
    } catch (error) {
      unreadable = { ok: false, error };
      break;
    }
  }
  for (let at = 0; at < txs.length; at += ctx.options.sendBatchSize) {
    try {
      outcomes.push(...(await sendOrdered(ctx, txs.slice(at, at + ctx.options.sendBatchSize))));
    } catch (e) {
      if (outcomes.length === 0) throw e;
      return outcomes;
    }
  }
  if (unreadable) outcomes.push(unreadable);
  return outcomes;
}

/** `eth_sendRawTransaction` of one transaction (see broadcastMany). */
export async function broadcast(ctx: EthContext, signed: SignedTx): Promise<BroadcastResult> {
  const [outcome] = await broadcastMany(ctx, [signed]);
  if (!outcome?.ok) throw outcome?.error;
  return outcome.result;
}
