/**
 * Compiles adaptors/ethereum/local-node/contracts/DemoToken.sol with solc-js (offline) into
 * adaptors/ethereum/local-node/demo-token.artifact.json. The artifact is committed so the sandbox and the
 * tests do not compile at start; test/sandbox/demo-token.test.ts checks it matches the source.
 */
import { writeFileSync } from 'node:fs';
import { compileDemoToken } from '../adaptors/ethereum/local-node/compile-demo-token.js';

const artifact = compileDemoToken();
writeFileSync(new URL('../adaptors/ethereum/local-node/demo-token.artifact.json', import.meta.url), `${JSON.stringify(artifact, null, 2)}\n`);
console.log(`bytecode ${artifact.bytecode.length / 2 - 1} bytes`);
