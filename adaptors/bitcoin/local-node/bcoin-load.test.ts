import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const run = promisify(execFile);
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/**
 * In a process of its own: Node warns of a deprecation once per process, so a process that
 * loaded bcoin before would hide the warning whatever loadBcoin does.
 */
describe('loading bcoin for the local regtest node', () => {
  it("drops bfile's fs.F_OK deprecation (DEP0176) and lets every other warning through", async () => {
    const script = [
      "const { loadBcoin } = await import('./adaptors/bitcoin/local-node/bcoin.ts');",
      'const emit = process.emitWarning;',
      'const bcoin = loadBcoin();',
      "if (process.emitWarning !== emit) throw new Error('process.emitWarning was not given back');",
      "if (typeof bcoin.FullNode !== 'function') throw new Error('no FullNode');",
      "process.emitWarning('after the load', { code: 'TEST_AFTER' });",
    ].join('\n');
    const { stderr } = await run(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: ROOT });
    expect(stderr).not.toContain('DEP0176');
    expect(stderr).toContain('[TEST_AFTER] Warning: after the load');
  });
});
