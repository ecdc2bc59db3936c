import { isAddress } from '@solana/kit';
import { z } from 'zod';

const tokenSchema = z
  .object({
    /** What clients call the token in `asset` fields (`USDC`). */
    symbol: z.string().regex(/^[A-Za-z0-9]{1,12}$/, 'a token symbol is 1 to 12 letters or digits'),
    /** The SPL mint address (base58). */
    mint: z.string().refine((s) => isAddress(s), 'a mint is a base58 Solana address'),
    decimals: z.number().int().min(0).max(18),
  })
  .strict();

export const solanaOptionsSchema = z
  .object({
    /** Solana JSON-RPC endpoint (a provider, the public one, or the local LiteSVM node). */
    rpcUrl: z.url({ protocol: /^https?$/ }),
    /** SPL tokens served by this ledger (classic SPL Token program). */
    tokens: z.array(tokenSchema).default([]),
    /** Commitment a withdrawal must reach to count as confirmed. */
    commitment: z.enum(['confirmed', 'finalized']).default('finalized'),
    /** What `confirmations` reports once the commitment is reached; Solana counts commitment, not blocks. */
    confirmations: z.number().int().min(1).default(1),
  })
  .strict()
  .superRefine((o, ctx) => {
    const seen = new Set<string>(['SOL']);
    for (const t of o.tokens) {
      if (seen.has(t.symbol.toUpperCase())) ctx.addIssue({ code: 'custom', message: `token symbol ${t.symbol} is listed twice (or is SOL)`, path: ['tokens'] });
      seen.add(t.symbol.toUpperCase());
    }
  });

export type SolanaOptions = z.infer<typeof solanaOptionsSchema>;
