/** Named fee levels; the first is the default. A custom constant is a gwei figure (max fee per gas). */
export const FEE_LEVELS = ['MEDIUM', 'HIGH', 'LOW'] as const;

export type FeeLevel = (typeof FEE_LEVELS)[number];
