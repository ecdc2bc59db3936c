import { z } from 'zod';
import { faultsSchema } from '../custody-simulator/faults.js';
import type { EmulatorContext } from './context.js';

/**
 * The simulator's fault kinds (delay, duplicate, drop, corrupt, legacy v, high-S, partial,
 * swap key), plus `endStatus`: the operation ends FAILED or ERROR instead of signing once
 * its quorum approved, as a key-service failure would.
 */
export const emulatorFaultsSchema = faultsSchema
  // The simulator's quorum shortcuts have real counterparts here (a declining member in the
  // approver policy, the manual policy, a cancel); accepting them and doing nothing would mislead.
  .omit({ end: true, holdApprovals: true, notifyEnd: true })
  .extend({ endStatus: z.enum(['FAILED', 'ERROR']).optional() });
export type EmulatorFaults = z.infer<typeof emulatorFaultsSchema>;

export interface FaultTable {
  global: EmulatorFaults;
  vaults: Record<string, EmulatorFaults>;
}

export async function faultTable(ctx: EmulatorContext): Promise<FaultTable> {
  return (await ctx.store.get<FaultTable>('meta', 'faults')) ?? { global: {}, vaults: {} };
}

export async function faultsFor(ctx: EmulatorContext, vaultId: string): Promise<EmulatorFaults> {
  const table = await faultTable(ctx);
  return { ...table.global, ...table.vaults[vaultId] };
}

/** Replaces the faults of one vault, or the global ones when `vaultId` is absent. */
export async function setFaults(ctx: EmulatorContext, faults: EmulatorFaults, vaultId?: string): Promise<FaultTable> {
  return ctx.store.exclusive(async () => {
    const table = await faultTable(ctx);
    if (vaultId === undefined) table.global = faults;
    else table.vaults[vaultId] = faults;
    await ctx.store.put('meta', 'faults', table);
    return table;
  });
}
