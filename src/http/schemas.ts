import { z } from 'zod';

/** Response shapes shared by several routes (spec: "Balance", "Error body (wallet layer)"). */
export const appErrorSchema = z
  .looseObject({
    title: z.string(),
    details: z.string(),
    errCode: z.string(),
    type: z.string(),
    valid: z.array(z.string()).optional().describe('ERR_INVALID_ARGUMENTS: the valid values'),
    notConfigured: z.boolean().optional().describe('A built-in ledger id without a back end on this service'),
    field: z.string().optional().describe('The request field at fault'),
    index: z.number().int().optional().describe('Index of the item at fault (keys[i])'),
    reason: z.string().optional().describe('ERR_VERIFICATION_FAILED: why the callback failed verification'),
    address: z.string().optional(),
    asset: z.string().optional().describe('ERR_INSUFFICIENT_FUNDS: the asset that is short'),
    required: z.string().optional().describe('ERR_INSUFFICIENT_FUNDS: what the withdrawal needs, asset units'),
    available: z.string().optional().describe('ERR_INSUFFICIENT_FUNDS: what can be spent, asset units'),
    fee: z.string().optional().describe('ERR_INSUFFICIENT_FUNDS: the fee part, in units of feeAsset'),
    feeAsset: z.string().optional(),
    requiredBaseUnits: z.string().optional(),
    availableBaseUnits: z.string().optional(),
    feeBaseUnits: z.string().optional(),
  })
  .describe('Wallet-layer error body; further fields may carry figures of the error')
  .meta({ id: 'AppError' });

export const assetBalanceSchema = z.object({ asset: z.string(), amount: z.string().describe('Decimal string in asset units') });

export const healthSchema = z.object({ healthy: z.boolean(), errorMessage: z.string().optional() });

/**
 * No length bound: the registry answers an id it does not know, of any length, with the 422
 * naming the valid ids (spec "Errors" 2); a schema bound would refuse a long one without them.
 */
export const ledgerIdParam = z.string().min(1).describe('Ledger id, e.g. eth, btctest, stellar');
