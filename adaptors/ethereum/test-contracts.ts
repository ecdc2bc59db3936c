import { createRequire } from 'node:module';

/** A contract compiled for a test: what ethers' ContractFactory takes. */
export interface TestContract {
  abi: unknown[];
  bytecode: string;
}

/**
 * Compiles one Solidity contract of a test with solc-js (a dev dependency), the way the demo
 * token is built (cancun, optimizer on), so a test shows the contract it runs against.
 */
export function compileTestContract(name: string, source: string): TestContract {
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
