import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

/** A compiled contract: what ethers' ContractFactory takes. */
export interface DemoTokenArtifact {
  abi: unknown[];
  bytecode: string;
}

/**
 * Compiles one Solidity contract (cancun, optimizer on) with solc-js, a dev dependency: only
 * the compile script and tests load it (tests compile the contracts they run against).
 */
export function compileSolidity(name: string, source: string): DemoTokenArtifact {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const input = {
    language: 'Solidity',
    sources: { [`${name}.sol`]: { content: source } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts?.[`${name}.sol`]?.[name];
  if (!c) throw new Error(`solc produced no ${name}`);
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}

export function compileDemoToken(): DemoTokenArtifact {
  return compileSolidity('DemoToken', readFileSync(new URL('./contracts/DemoToken.sol', import.meta.url), 'utf8'));
}
