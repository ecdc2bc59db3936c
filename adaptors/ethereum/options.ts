import { z } from 'zod';
import { httpUrl } from '../../src/platform/url-schemas.js';

const tokenSchema = z.strictObject({
  symbol: z.string().regex(/^[A-Za-z0-9._-]{1,20}$/, 'a token symbol is 1-20 letters, digits, . _ -'),
  contract: z.string().regex(/^0x[0-9a-fA-F]{40}$/, 'a token contract is a 0x-prefixed 20-byte hex address'),
  decimals: z.number().int().min(0).max(36),
});

export const ethereumOptionsSchema = z.strictObject({
  /** JSON-RPC endpoint of any node or provider. */
  rpcUrl: httpUrl(),
  /** Expected chain id; defaults from the ledger id (eth 1, ethtest 11155111, ethdev 31337). */
  chainId: z.number().int().positive().optional(),
  /** ERC-20 tokens served as assets of this ledger. */
  tokens: z.array(tokenSchema).default([]),
  /** `eip1559` (type-2 transactions, fees from eth_feeHistory) or `legacy` (gasPrice). */
  feeMode: z.enum(['eip1559', 'legacy']).default('eip1559'),
  /** Confirmations after which a withdrawal is CONFIRMED. */
  confirmations: z.number().int().min(1).default(3),
  /** Margin added to eth_estimateGas, percent. */
  gasMarginPercent: z.number().int().min(0).max(200).default(20),
  /**
   * How old the head block number may be before withdrawals ask the node again, ms. Fee
   * history, balances, nonces and gas estimates are read once per head block (0: the head
   * is asked on every withdrawal; the reads are still shared per block).
   */
  headMaxAgeMs: z.number().int().min(0).max(60_000).default(1000),
  /**
   * Signed transactions of one account sent together in one JSON-RPC batch when several are
   * ready at once (a batch payout): one round trip per batch. A node that runs a batch's
   * entries out of order and refuses gaps gets the overtaken ones again (logic/broadcast.ts);
   * 1 sends each on its own.
   */
  sendBatchSize: z.number().int().min(1).max(100).default(16),
});

export type EthereumOptions = z.infer<typeof ethereumOptionsSchema>;
