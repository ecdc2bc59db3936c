import { z } from 'zod';

/**
 * A deposit: value that arrived at an address of a registered vault, keyed by where it is on
 * chain (ledger, txid, index in the transaction), never by block: a transaction that a reorg
 * moves to another block is the same deposit.
 *
 * States, each entered once per block the deposit is in:
 * - `DETECTED`   in a block of the best chain, fewer than the ledger's confirmations deep
 * - `CONFIRMED`  its block is the ledger's confirmations deep (final: a deeper reorg is flagged, not undone)
 * - `REVERTED`   its block left the best chain before it was confirmed, and the new chain, grown
 *                back to that height, does not hold it. Should it land later after all, it is
 *                `DETECTED` again (the same deposit, its events numbered on).
 */
export const DEPOSIT_STATES = ['DETECTED', 'CONFIRMED', 'REVERTED'] as const;
export type DepositState = (typeof DEPOSIT_STATES)[number];

/** What a deposit is and stays: written once when it is first seen. */
export interface DepositData {
  /** `{ledgerId}:{txid}:{index}`. */
  depositId: string;
  ledgerId: string;
  vaultId: string;
  /** The vault's address that received. */
  address: string;
  txid: string;
  /** Position in the transaction (`out:1`, `log:4`, `value`, `op:0`, `ix:2`). */
  index: string;
  /** The asset's symbol, or the ledger's id of a token this ledger is not configured with. */
  asset: string;
  /** False for a token that is not configured: recorded, never to be credited. */
  credited: boolean;
  /** In asset units (`1.5`), as the wallet layer shows amounts; in base units for a token that is not configured (its decimals are unknown). */
  amount: string;
  /** Base units, decimal string. */
  baseUnits: string;
  from: string[];
  memo?: string;
  muxedId?: string;
  /** The token account that received, when it is not `address` itself (Solana). */
  account?: string;
  /** BIP44 vaults: `change/index` of the receiving address. */
  path?: string;
}

export function depositId(ledgerId: string, txid: string, index: string): string {
  return `${ledgerId}:${txid}:${index}`;
}

/** A deposit as the API and the events show it. */
export const depositViewSchema = z
  .object({
    depositId: z.string().describe('`{ledgerId}:{txid}:{index}`: where the value is on chain, the same whatever block holds it'),
    ledgerId: z.string(),
    vaultId: z.string(),
    address: z.string().describe("The vault's address that received"),
    txid: z.string(),
    index: z.string().describe('Position in the transaction: `out:N` (Bitcoin output), `value` or `log:N` (Ethereum), `op:N` (Stellar), `ix:N` (Solana)'),
    asset: z.string().describe("The asset's symbol, or the token's contract / id when the ledger is not configured with it (then credited is false)"),
    credited: z.boolean().describe('False for a token that is not configured: recorded, not to be credited'),
    amount: z.string().describe("In asset units (1.5), as balances show them; in base units when credited is false (the token's decimals are unknown)"),
    baseUnits: z.string().describe('The amount in base units (wei, satoshis, stroops, lamports)'),
    from: z.array(z.string()),
    memo: z.string().optional().describe('The memo the payment carried (Stellar, or the Solana Memo program): exchanges route deposits by it'),
    muxedId: z.string().optional().describe('The muxed account id the payment named (Stellar M… addresses)'),
    account: z.string().optional().describe('The token account that received, when not the address itself (a Solana associated token account)'),
    path: z.string().optional().describe('BIP44 vaults: change/index of the receiving address'),
    state: z.enum(DEPOSIT_STATES),
    blockHeight: z.number(),
    blockHash: z.string(),
    blockTime: z.string().describe('Time of the block that holds it (ISO 8601)'),
    confirmations: z.number().optional().describe('Blocks on top of and including its block, as far as the scanner has read (absent once REVERTED)'),
    reorganisedAfterConfirmation: z.boolean().optional().describe('Its block left the best chain after it was CONFIRMED: look at it by hand'),
    detectedAt: z.string(),
    confirmedAt: z.string().optional(),
    revertedAt: z.string().optional(),
    updatedAt: z.string(),
  })
  .meta({ id: 'Deposit' });
export type DepositView = z.infer<typeof depositViewSchema>;

/** A deposit record's fields as stored (a Redis hash); see deposit-store.ts. */
export function depositFromFields(f: Record<string, string>, scannedHeight?: number): DepositView | undefined {
  if (!f.data || !f.state) return undefined;
  const data = JSON.parse(f.data) as DepositData;
  const state = f.state as DepositState;
  const height = Number(f.height);
  return {
    ...data,
    state,
    blockHeight: height,
    blockHash: f.hash as string,
    blockTime: f.blockTime as string,
    ...(scannedHeight !== undefined && state !== 'REVERTED' && !f.orphaned ? { confirmations: Math.max(0, scannedHeight - height + 1) } : {}),
    ...(f.deepReorg ? { reorganisedAfterConfirmation: true } : {}),
    detectedAt: f.detectedAt as string,
    ...(f.confirmedAt ? { confirmedAt: f.confirmedAt } : {}),
    ...(f.revertedAt ? { revertedAt: f.revertedAt } : {}),
    updatedAt: f.updatedAt as string,
  };
}
