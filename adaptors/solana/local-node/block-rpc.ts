import type { BlockLog, RecordedBlock, RecordedTx } from './blocks.js';
import { fail } from './rpc-error.js';

/**
 * getBlock and getBlocks as Agave answers them (rpc/src/rpc.rs, get_block and get_blocks), from
 * the blocks the local node recorded. Blocks, like accounts, are served from the one bank there
 * is, at every commitment (only signature statuses follow the commitment model, commitment.ts):
 * a slot up to the node's has its block or was skipped.
 * Stricter than Agave in one way: a config key it does not know is refused, where Agave's serde
 * ignores it (a misspelt option would silently do nothing on a real node).
 */

/** Agave's MAX_GET_CONFIRMED_BLOCKS_RANGE. */
const MAX_RANGE = 500_000;
const ENCODINGS = ['binary', 'base64', 'base58', 'json', 'jsonParsed'];
const DETAILS = ['full', 'signatures', 'none', 'accounts'];
const COMMITMENTS = ['processed', 'confirmed', 'finalized'];

interface BlockConfig {
  encoding: 'json' | 'base64';
  details: 'full' | 'signatures' | 'none';
  rewards: boolean;
  maxVersion?: number;
}

export function getBlock(log: BlockLog, params: unknown[], currentSlot: number): unknown {
  const slot = asSlot(params[0]);
  const config = blockConfig(params[1]);
  if (slot > currentSlot) return fail(-32004, `Block not available for slot ${slot}`);
  // Before the node's ledger begins (its first block, or blocks pruned since), as Agave's check_slot_cleaned_up.
  if (slot < log.firstAvailable) return fail(-32001, `Block ${slot} cleaned up, does not exist on node. First available block: ${log.firstAvailable}`);
  const block = log.get(slot);
  if (!block) return fail(-32007, `Slot ${slot} was skipped, or missing due to ledger jump to recent snapshot`);
  return encodeBlock(block, config);
}

export function getBlocks(log: BlockLog, params: unknown[], currentSlot: number): number[] {
  const start = asSlot(params[0]);
  // Agave's RpcBlocksConfigWrapper: the second parameter is the end slot or the config.
  const endGiven = typeof params[1] === 'number' ? asSlot(params[1]) : undefined;
  commitmentOf(typeof params[1] === 'object' && params[1] !== null ? params[1] : params[2], ['commitment', 'minContextSlot']);
  const end = Math.min(endGiven ?? start + MAX_RANGE, currentSlot);
  if (end < start) return [];
  if (end - start > MAX_RANGE) return fail(-32602, `Slot range too large; max ${MAX_RANGE}`);
  return log.slots(start, end);
}

function asSlot(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0)
    return fail(-32602, `Invalid params: invalid type: expected u64 slot, got ${JSON.stringify(v)}`);
  return v;
}

/** The config object's commitment, checked as Agave's check_is_at_least_confirmed does; other keys against `known`. */
function commitmentOf(config: unknown, known: string[]): void {
  if (config === undefined || config === null) return;
  if (typeof config !== 'object' || Array.isArray(config)) return fail(-32602, 'Invalid params: expected a config object');
  for (const key of Object.keys(config))
    if (!known.includes(key)) return fail(-32602, `Invalid params: unknown field \`${key}\`, expected one of ${known.map((k) => `\`${k}\``).join(', ')}`);
  const c = (config as { commitment?: unknown }).commitment;
  if (c === undefined) return;
  if (typeof c !== 'string' || !COMMITMENTS.includes(c))
    return fail(-32602, `Invalid params: unknown variant \`${String(c)}\`, expected one of ${COMMITMENTS.map((k) => `\`${k}\``).join(', ')}`);
  if (c === 'processed') return fail(-32602, 'Method does not support commitment below `confirmed`');
}

function blockConfig(raw: unknown): BlockConfig {
  // The deprecated form: the encoding alone.
  const config = (typeof raw === 'string' ? { encoding: raw } : (raw ?? {})) as Record<string, unknown>;
  commitmentOf(config, ['encoding', 'transactionDetails', 'rewards', 'commitment', 'maxSupportedTransactionVersion']);
  const variant = (key: string, allowed: string[], served: string[], fallback: string): string => {
    const v = config[key] ?? fallback;
    if (typeof v !== 'string' || !allowed.includes(v))
      return fail(-32602, `Invalid params: unknown variant \`${String(v)}\`, expected one of ${allowed.map((k) => `\`${k}\``).join(', ')}`);
    if (!served.includes(v)) return fail(-32602, `Invalid params: the local LiteSVM node serves getBlock with ${key} ${served.join(' or ')}, not ${v}`);
    return v;
  };
  const encoding = variant('encoding', ENCODINGS, ['json', 'base64'], 'json') as BlockConfig['encoding'];
  const details = variant('transactionDetails', DETAILS, ['full', 'signatures', 'none'], 'full') as BlockConfig['details'];
  const rewards = config.rewards ?? true;
  if (typeof rewards !== 'boolean') return fail(-32602, 'Invalid params: invalid type: expected a boolean for rewards');
  const max = config.maxSupportedTransactionVersion;
  if (max !== undefined && (typeof max !== 'number' || !Number.isInteger(max) || max < 0 || max > 255))
    return fail(-32602, 'Invalid params: invalid type: expected u8 for maxSupportedTransactionVersion');
  return { encoding, details, rewards, ...(max !== undefined ? { maxVersion: max } : {}) };
}

/** Agave's UiConfirmedBlock for the config: transactions (full), first signatures (signatures) or neither (none). */
function encodeBlock(block: RecordedBlock, config: BlockConfig): unknown {
  const head = {
    blockHeight: block.blockHeight,
    blockTime: block.blockTime,
    blockhash: block.blockhash,
    parentSlot: block.parentSlot,
    previousBlockhash: block.previousBlockhash,
    ...(config.rewards ? { rewards: [] } : {}),
  };
  if (config.details === 'none') return head;
  if (config.details === 'signatures') return { ...head, signatures: block.transactions.map((t) => t.signatures[0]) };
  return { ...head, transactions: block.transactions.map((t) => encodeTransaction(t, config)) };
}

function encodeTransaction(t: RecordedTx, config: BlockConfig): unknown {
  // Agave refuses a whole block holding a versioned transaction the client did not say it reads.
  if (t.version !== 'legacy' && (config.maxVersion === undefined || config.maxVersion < t.version))
    return fail(
      -32015,
      `Transaction version (${t.version}) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": ${t.version}`,
    );
  const transaction = config.encoding === 'base64' ? [Buffer.from(t.wire).toString('base64'), 'base64'] : { signatures: t.signatures, message: t.message };
  const meta = {
    err: t.err,
    status: t.err === null ? { Ok: null } : { Err: t.err },
    fee: t.fee,
    preBalances: t.preBalances,
    postBalances: t.postBalances,
    innerInstructions: t.innerInstructions,
    logMessages: t.logMessages,
    preTokenBalances: t.preTokenBalances,
    postTokenBalances: t.postTokenBalances,
    ...(config.rewards ? { rewards: [] } : {}),
    loadedAddresses: t.loadedAddresses,
    computeUnitsConsumed: t.computeUnitsConsumed,
  };
  // The version is named only to a client that gave maxSupportedTransactionVersion.
  return { transaction, meta, ...(config.maxVersion !== undefined ? { version: t.version } : {}) };
}
