import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

export interface DemoTokenArtifact {
  abi: unknown[];
  bytecode: string;
}

/** solc-js is a dev dependency: only the compile script and its test load it. */
export function compileDemoToken(): DemoTokenArtifact {
  const solc = createRequire(import.meta.url)('solc') as { compile(input: string): string };
  const source = readFileSync(new URL('./contracts/DemoToken.sol', import.meta.url), 'utf8');
  const input = {
    language: 'Solidity',
    sources: { 'DemoToken.sol': { content: source } },
    settings: { evmVersion: 'cancun', optimizer: { enabled: true, runs: 200 }, outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } } },
  };
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error');
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join('\n'));
  const c = output.contracts['DemoToken.sol']?.DemoToken;
  if (!c) throw new Error('solc produced no DemoToken');
  return { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
}
