import { z } from 'zod';

/** Response shapes shared by several routes (spec: "Balance", "Error body (wallet layer)"). */
export const appErrorSchema = z
  .object({ title: z.string(), details: z.string(), errCode: z.string(), type: z.string() })
  .meta({ id: 'AppError' });

export const assetBalanceSchema = z.object({ asset: z.string(), amount: z.string().describe('Decimal string in asset units') });

export const healthSchema = z.object({ healthy: z.boolean(), errorMessage: z.string().optional() });

export const ledgerIdParam = z.string().min(1).max(64).describe('Ledger id, e.g. eth, btctest, stellar');
