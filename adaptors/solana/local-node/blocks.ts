import { getBase58Decoder, getCompiledTransactionMessageDecoder, getTransactionEncoder, type Address, type Transaction } from '@solana/kit';
import { FailedTransactionMetadata, type LiteSVM, type TransactionMetadata } from 'litesvm';
import { transactionError } from './tx-error.js';

/**
 * What the local node keeps of the blocks it produces, to answer getBlock and getBlocks as an
 * Agave node does. LiteSVM has no blocks: the facade records, for every transaction it runs,
 * what a block shows of it (the message, the fee, every account's lamports and token balances
 * before and after, the error, logs, inner instructions), and closes a block per slot.
 */

const TOKEN_PROGRAMS = new Set(['TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb']);
const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
const LAMPORTS_PER_SIGNATURE = 5_000n;
/** Agave's compute-unit limit of a transaction that sets none: 200,000 per instruction, at most 1.4 million. */
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS = 1_400_000n;
/** Blocks kept, as a node keeps a bounded ledger: older ones are cleaned up (about 11 hours of mainnet slots). */
const KEPT_BLOCKS = 100_000;
/** The parent hash of the node's first block: Agave's for genesis, the default hash (32 zero bytes). */
const ZERO_HASH = '11111111111111111111111111111111';

/** A token account's balance as Agave's transaction status meta lists it. */
export interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner: string;
  programId: string;
  uiTokenAmount: { uiAmount: number | null; decimals: number; amount: string; uiAmountString: string };
}

interface CompiledIx {
  programIdIndex: number;
  accounts: number[];
  data: string;
  stackHeight: number | null;
}

/** One executed transaction as it stands in its block. */
export interface RecordedTx {
  signatures: string[];
  version: 'legacy' | 0;
  wire: Uint8Array;
  message: {
    header: { numRequiredSignatures: number; numReadonlySignedAccounts: number; numReadonlyUnsignedAccounts: number };
    accountKeys: string[];
    recentBlockhash: string;
    instructions: CompiledIx[];
    addressTableLookups?: { accountKey: string; writableIndexes: number[]; readonlyIndexes: number[] }[];
  };
  err: unknown;
  fee: number;
  preBalances: number[];
  postBalances: number[];
  preTokenBalances: TokenBalance[];
  postTokenBalances: TokenBalance[];
  innerInstructions: { index: number; instructions: CompiledIx[] }[];
  logMessages: string[];
  loadedAddresses: { writable: string[]; readonly: string[] };
  computeUnitsConsumed: number;
}

export interface RecordedBlock {
  slot: number;
  parentSlot: number;
  blockhash: string;
  previousBlockhash: string;
  blockHeight: number;
  /** Unix seconds. */
  blockTime: number;
  transactions: RecordedTx[];
}

/** How a transaction ran: `landed` when the runtime charged its fee, so it is in the block with or without an error. */
export interface Execution {
  result: TransactionMetadata | FailedTransactionMetadata;
  signature: string;
  landed: boolean;
  err: unknown;
}

export class BlockLog {
  private readonly blocks = new Map<number, RecordedBlock>();
  /** Transactions run since the last block closed: the next block's. */
  private pending: RecordedTx[] = [];
  private tip: RecordedBlock;

  constructor(genesis: { slot: number; blockhash: string }) {
    // LiteSVM's clock starts far from 0: the first block counts as if every slot before it had
    // one, so block heights equal slots until a slot is skipped.
    this.tip = {
      slot: genesis.slot,
      parentSlot: genesis.slot,
      blockhash: genesis.blockhash,
      previousBlockhash: ZERO_HASH,
      blockHeight: genesis.slot,
      blockTime: now(),
      transactions: [],
    };
    this.blocks.set(genesis.slot, this.tip);
  }

  /** The block height of the latest block: it grows by one a block (skipped slots have none). */
  get height(): number {
    return this.tip.blockHeight;
  }

  /** The slot of the oldest block kept: below it, blocks are cleaned up (or before the node began). */
  get firstAvailable(): number {
    return this.blocks.keys().next().value as number;
  }

  /** Runs the transaction on the SVM and notes what its block will show of it (when it lands). */
  run(svm: LiteSVM, tx: Transaction): Execution {
    const message = decodeMessage(svm, tx);
    const keys = [...message.accountKeys, ...message.loaded.writable, ...message.loaded.readonly] as Address[];
    const invoked = new Set(message.instructions.map((ix) => ix.programIdIndex));
    const before = balances(svm, keys, invoked);
    const result = svm.sendTransaction(tx);
    const after = balances(svm, keys, invoked);
    const signature = getBase58Decoder().decode(result instanceof FailedTransactionMetadata ? result.meta().signature() : result.signature());
    const meta = result instanceof FailedTransactionMetadata ? result.meta() : result;
    const err = result instanceof FailedTransactionMetadata ? transactionError(result) : null;
    // A transaction the runtime refused before charging its fee (a bad signature, an unknown
    // blockhash, a fee payer without funds) is in no block; one that failed after is, with its error.
    const landed = err === null || (after.lamports[0] ?? 0n) < (before.lamports[0] ?? 0n);
    if (!landed) return { result, signature, landed, err };
    this.pending.push({
      signatures: Object.values(tx.signatures).map((s) => getBase58Decoder().decode(s ?? new Uint8Array(64))),
      version: message.version,
      wire: Uint8Array.from(getTransactionEncoder().encode(tx)),
      message: {
        header: message.header,
        accountKeys: message.accountKeys,
        recentBlockhash: message.recentBlockhash,
        instructions: message.instructions,
        ...(message.version === 0 ? { addressTableLookups: message.lookups } : {}),
      },
      err,
      fee: Number(err === null ? message.fee : (before.lamports[0] ?? 0n) - (after.lamports[0] ?? 0n)),
      preBalances: before.lamports.map(Number),
      postBalances: after.lamports.map(Number),
      preTokenBalances: before.tokens,
      postTokenBalances: after.tokens,
      innerInstructions: meta
        .innerInstructions()
        .map((inner, index) => ({
          index,
          instructions: inner.map((i) => {
            const c = i.instruction();
            return { programIdIndex: c.programIdIndex(), accounts: [...c.accounts()], data: getBase58Decoder().decode(c.data()), stackHeight: i.stackHeight() };
          }),
        }))
        .filter((i) => i.instructions.length > 0),
      logMessages: meta.logs(),
      loadedAddresses: message.loaded,
      computeUnitsConsumed: Number(meta.computeUnitsConsumed()),
    });
    return { result, signature, landed, err };
  }

  /** Closes the block at `slot` on the latest one, with the transactions run since; slots between them are skipped. */
  close(slot: number, blockhash: string): RecordedBlock {
    const block: RecordedBlock = {
      slot,
      parentSlot: this.tip.slot,
      blockhash,
      previousBlockhash: this.tip.blockhash,
      blockHeight: this.tip.blockHeight + 1,
      blockTime: now(),
      transactions: this.pending,
    };
    this.pending = [];
    this.blocks.set(slot, block);
    // Slots only grow: the map's first key is the oldest block.
    if (this.blocks.size > KEPT_BLOCKS) this.blocks.delete(this.firstAvailable);
    this.tip = block;
    return block;
  }

  /** The block of a slot; undefined for a slot with none (skipped, or not reached yet). */
  get(slot: number): RecordedBlock | undefined {
    return this.blocks.get(slot);
  }

  /** Slots from `start` to `end` that have a block, ascending. */
  slots(start: number, end: number): number[] {
    const out: number[] = [];
    for (const slot of this.blocks.keys()) if (slot >= start && slot <= end) out.push(slot);
    return out.sort((a, b) => a - b);
  }
}

const now = () => Math.floor(Date.now() / 1000);

interface DecodedMessage {
  version: 'legacy' | 0;
  header: RecordedTx['message']['header'];
  accountKeys: string[];
  recentBlockhash: string;
  instructions: CompiledIx[];
  lookups: NonNullable<RecordedTx['message']['addressTableLookups']>;
  loaded: { writable: string[]; readonly: string[] };
  fee: bigint;
}

function decodeMessage(svm: LiteSVM, tx: Transaction): DecodedMessage {
  const m = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  if (m.version !== 'legacy' && m.version !== 0) throw new Error(`the local node records legacy and v0 transactions, not version ${String(m.version)}`);
  const b58 = getBase58Decoder();
  const instructions = m.instructions.map((ix) => ({
    programIdIndex: ix.programAddressIndex,
    accounts: [...(ix.accountIndices ?? [])],
    data: b58.decode(ix.data ?? new Uint8Array()),
    stackHeight: null,
  }));
  const lookups = (('addressTableLookups' in m ? m.addressTableLookups : undefined) ?? []).map((l) => ({
    accountKey: l.lookupTableAddress as string,
    writableIndexes: [...l.writableIndexes],
    readonlyIndexes: [...l.readonlyIndexes],
  }));
  // An address lookup table's addresses follow its 56-byte header, 32 bytes each.
  const resolve = (table: string, i: number) => {
    const acc = svm.getAccount(table as Address);
    return acc.exists ? b58.decode(acc.data.subarray(56 + 32 * i, 88 + 32 * i)) : '';
  };
  const loaded = {
    writable: lookups.flatMap((l) => l.writableIndexes.map((i) => resolve(l.accountKey, i))),
    readonly: lookups.flatMap((l) => l.readonlyIndexes.map((i) => resolve(l.accountKey, i))),
  };
  return {
    version: m.version,
    header: {
      numRequiredSignatures: m.header.numSignerAccounts,
      numReadonlySignedAccounts: m.header.numReadonlySignerAccounts,
      numReadonlyUnsignedAccounts: m.header.numReadonlyNonSignerAccounts,
    },
    accountKeys: [...m.staticAccounts],
    recentBlockhash: m.lifetimeToken,
    instructions,
    lookups,
    loaded,
    fee: fee(m.header.numSignerAccounts, m.staticAccounts, m.instructions),
  };
}

/**
 * The fee the runtime charges: 5,000 lamports a signature and the priority fee, the compute-unit
 * price (micro-lamports) times the compute-unit limit, rounded up.
 */
function fee(signatures: number, keys: readonly string[], instructions: readonly { programAddressIndex: number; data?: ArrayLike<number> }[]): bigint {
  let price = 0n;
  let limit: bigint | undefined;
  let others = 0n;
  for (const ix of instructions) {
    const data = Buffer.from(Uint8Array.from(ix.data ?? []));
    if (keys[ix.programAddressIndex] !== COMPUTE_BUDGET_PROGRAM) others++;
    else if (data[0] === 2 && data.length >= 5) limit = BigInt(data.readUInt32LE(1));
    else if (data[0] === 3 && data.length >= 9) price = data.readBigUInt64LE(1);
  }
  const units = limit ?? (others * DEFAULT_UNITS_PER_INSTRUCTION < MAX_UNITS ? others * DEFAULT_UNITS_PER_INSTRUCTION : MAX_UNITS);
  return BigInt(signatures) * LAMPORTS_PER_SIGNATURE + (price * units + 999_999n) / 1_000_000n;
}

/** Every account's lamports, and the token balances of the token accounts among them (programs invoked left out, as Agave does). */
function balances(svm: LiteSVM, keys: Address[], invoked: Set<number>): { lamports: bigint[]; tokens: TokenBalance[] } {
  const lamports: bigint[] = [];
  const tokens: TokenBalance[] = [];
  const b58 = getBase58Decoder();
  keys.forEach((key, accountIndex) => {
    const acc = svm.getAccount(key);
    lamports.push(acc.exists ? BigInt(acc.lamports) : 0n);
    if (!acc.exists || invoked.has(accountIndex) || !TOKEN_PROGRAMS.has(acc.programAddress)) return;
    const data = acc.data;
    // An initialized token account: 165 bytes (Token-2022: more, with its account-type byte 2 at 165), state at 108.
    if (data.length < 165 || data[108] === 0 || (data.length > 165 && data[165] !== 2)) return;
    const mint = b58.decode(data.subarray(0, 32));
    const mintAcc = svm.getAccount(mint as Address);
    const decimals = mintAcc.exists ? (mintAcc.data[44] ?? 0) : 0;
    const amount = Buffer.from(data.subarray(64, 72)).readBigUInt64LE();
    tokens.push({
      accountIndex,
      mint,
      owner: b58.decode(data.subarray(32, 64)),
      programId: acc.programAddress,
      uiTokenAmount: uiAmount(amount, decimals),
    });
  });
  return { lamports, tokens };
}

/** Agave's UI amount: the amount in units as a float (null for zero, as blocks read from the ledger store show it) and as trimmed text. */
function uiAmount(amount: bigint, decimals: number): TokenBalance['uiTokenAmount'] {
  const digits = amount.toString().padStart(decimals + 1, '0');
  const whole = digits.slice(0, digits.length - decimals);
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '');
  const text = fraction ? `${whole}.${fraction}` : whole;
  return { uiAmount: amount === 0n ? null : Number(text), decimals, amount: amount.toString(), uiAmountString: text };
}
