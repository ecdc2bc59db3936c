/**
 * The address-derivation thread's entry module, `derive-thread.ts` beside this file, in this
 * module's own language: `.ts` under tsx (development, tests), `.js` built.
 */
export function deriveThreadEntry(): URL {
  const here = new URL(import.meta.url);
  return new URL(`./derive-thread${here.pathname.endsWith('.ts') ? '.ts' : '.js'}`, here);
}
