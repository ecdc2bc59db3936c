import { Router } from 'express';
import type { EmulatorContext } from './context.js';
import { vaultOr404 } from './engine.js';
import { policyOf, vaultPolicySchema } from './policy.js';
import { parse } from './problem.js';

/**
 * Emulator-only: a vault policy's rules, read and replaced (`/emulator/v1/vaults/{id}/policy`).
 * Mounted under the emulator path after the device routes, whose admin guard covers every
 * request there.
 */
export function policyRoutes(ctx: EmulatorContext): Router {
  const r = Router();
  r.get('/vaults/:id/policy', async (req, res) => {
    const vault = await vaultOr404(ctx, req.params.id);
    res.json({ policyId: vault.policyId, ...policyOf(vault) });
  });
  r.put('/vaults/:id/policy', async (req, res) => {
    const policy = parse(vaultPolicySchema, req.body);
    const vault = await ctx.store.exclusive(async () => {
      const vault = await vaultOr404(ctx, req.params.id);
      vault.policy = policy;
      await ctx.store.put('vault', vault.id, vault);
      return vault;
    });
    ctx.logger.info({ vaultId: vault.id, rules: Object.keys(policy.rules) }, 'vault policy rules set');
    // Held requests follow the new rules at once: released, declined, or held to a new opening.
    await ctx.holds.check();
    res.json({ policyId: vault.policyId, ...policy });
  });
  return r;
}
