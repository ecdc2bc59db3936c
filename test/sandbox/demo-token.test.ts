import { describe, expect, it } from 'vitest';
import { compileDemoToken } from '../../adaptors/ethereum/local-node/compile-demo-token.js';
import artifact from '../../adaptors/ethereum/local-node/demo-token.artifact.json' with { type: 'json' };

describe('demo token artifact', () => {
  it('is what adaptors/ethereum/local-node/contracts/DemoToken.sol compiles to (run scripts/compile-contracts.ts after editing it)', () => {
    const fresh = compileDemoToken();
    expect(fresh.bytecode).toBe(artifact.bytecode);
    expect(fresh.abi).toEqual(artifact.abi);
  });
});
