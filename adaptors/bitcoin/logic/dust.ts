/**
 * Bitcoin Core's dust threshold (policy.cpp GetDustThreshold) at the default dust relay fee
 * of 3 sat/vB: an output is dust when spending it would cost more than a third of its
 * value. 546 sat for P2PKH, 540 for P2SH, 294 for P2WPKH, 330 for P2WSH and P2TR.
 */
const DUST_RELAY_SAT_PER_VB = 3n;

function isWitnessProgram(script: Uint8Array): boolean {
  const version = script[0];
  const push = script[1];
  return (
    script.length >= 4 &&
    script.length <= 42 &&
    (version === 0x00 || (version !== undefined && version >= 0x51 && version <= 0x60)) &&
    push === script.length - 2
  );
}

export function dustThreshold(script: Uint8Array): bigint {
  const outputSize = 8 + 1 + script.length;
  // Size of the input that would later spend it: 32+4+1+4 plus a signature and key (witness discounted).
  const spendSize = isWitnessProgram(script) ? 32 + 4 + 1 + Math.floor(107 / 4) + 4 : 32 + 4 + 1 + 107 + 4;
  return BigInt(outputSize + spendSize) * DUST_RELAY_SAT_PER_VB;
}
