import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../../src/dev/free-port.js';
import { rpcAnswers, type LocalAnvil } from './local-anvil.js';

/** A running local EVM node; the same shape as anvil's so tests can take either. */
export type LocalEvmNode = LocalAnvil;

/** Hardhat 2's command-line entry, from the `hardhat` npm package (a dev dependency), and the project holding it. */
function hardhatInstall(): { cli: string; project: string } {
  const require = createRequire(import.meta.url);
  const pkg = path.dirname(require.resolve('hardhat/package.json'));
  // Hardhat refuses to run from a folder that does not have it installed (HH12), so it runs
  // from the project that does; its config, and so its cache, stay in the temporary folder.
  return { cli: path.join(pkg, 'internal', 'cli', 'cli.js'), project: path.resolve(pkg, '..', '..') };
}

/**
 * Starts Hardhat Network (Hardhat 2.x, EDR engine) on a free port, in its default automining
 * mode: one block per transaction, and a transaction whose nonce leaves a gap is refused
 * ("Nonce too high … transactions can't be queued when automining"), as on rollup sequencers.
 * A minimal config file in a temporary folder sets the chain id; the accounts are Hardhat's
 * standard development accounts (the same mnemonic as anvil's).
 */
export async function startHardhat(opts: { chainId?: number } = {}): Promise<LocalEvmNode> {
  const port = await freePort();
  const chainId = opts.chainId ?? 31337;
  const dir = await mkdtemp(path.join(tmpdir(), 'byow-hardhat-'));
  const config = path.join(dir, 'hardhat.config.cjs');
  await writeFile(config, `module.exports = { networks: { hardhat: { chainId: ${chainId} } } };\n`);
  const { cli, project } = hardhatInstall();
  const child: ChildProcess = spawn(process.execPath, [cli, '--config', config, 'node', '--hostname', '127.0.0.1', '--port', String(port)], {
    cwd: project,
    stdio: 'ignore',
    env: { ...process.env, HARDHAT_DISABLE_TELEMETRY_PROMPT: 'true' },
  });
  const failed = await new Promise<Error | undefined>((resolve) => {
    child.once('error', resolve);
    child.once('spawn', () => resolve(undefined));
  });
  if (failed) throw new Error(`hardhat could not be started: ${failed.message}`);
  const url = `http://127.0.0.1:${port}`;
  // Hardhat compiles nothing here but loads its plugins: allow it a while on a busy machine.
  for (let i = 0; i < 600 && child.exitCode === null && !(await rpcAnswers(url)); i++) await new Promise((r) => setTimeout(r, 100));
  if (!(await rpcAnswers(url))) {
    child.kill('SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw new Error(`hardhat did not answer on ${url}`);
  }
  return {
    url,
    chainId,
    stop: async () => {
      if (child.exitCode === null) {
        await new Promise<void>((resolve) => {
          child.once('exit', () => resolve());
          child.kill('SIGTERM');
        });
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
