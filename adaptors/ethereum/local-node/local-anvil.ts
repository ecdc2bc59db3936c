import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { freePort } from '../../../src/dev/free-port.js';

export interface LocalAnvil {
  url: string;
  chainId: number;
  /** The node's own process, where it has one (the bench reads its CPU time by it). */
  pid?: number;
  stop(): Promise<void>;
}

const PLATFORM: Record<string, string> = {
  'linux-x64': 'linux-amd64',
  'linux-arm64': 'linux-arm64',
  'darwin-x64': 'darwin-amd64',
  'darwin-arm64': 'darwin-arm64',
  'win32-x64': 'win32-amd64',
};

/** The anvil binary shipped inside the `@foundry-rs/anvil-<platform>` npm package. */
export function anvilBinary(): string {
  const platform = PLATFORM[`${process.platform}-${process.arch}`];
  if (!platform) throw new Error(`anvil has no build for ${process.platform}-${process.arch}`);
  const require = createRequire(import.meta.url);
  const pkg = require.resolve(`@foundry-rs/anvil-${platform}/package.json`);
  return path.join(path.dirname(pkg), 'bin', process.platform === 'win32' ? 'anvil.exe' : 'anvil');
}

export async function rpcAnswers(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] }),
    });
    return res.ok;
  } catch {
    return false;
  }
}

/**
 * Starts a real local EVM node (anvil) on a free port. `--prune-history` keeps its memory
 * bounded under load (it has grown without bound here without it); `keepStates` keeps that
 * many recent states in memory, which `anvil_reorg` needs (none are kept without it).
 */
export async function startAnvil(opts: { chainId?: number; blockTime?: number; mixedMining?: boolean; keepStates?: number } = {}): Promise<LocalAnvil> {
  const port = await freePort();
  const chainId = opts.chainId ?? 31337;
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--prune-history',
    ...(opts.keepStates ? [String(opts.keepStates)] : []),
    '--silent',
  ];
  if (opts.blockTime) args.push('--block-time', String(opts.blockTime));
  // Mined on every transaction and on a timer: transactions that arrived ahead of their nonce
  // are mined once the gap fills, as on a live chain.
  if (opts.mixedMining) args.push('--mixed-mining');
  const child: ChildProcess = spawn(anvilBinary(), args, { stdio: 'ignore' });
  const failed = await new Promise<Error | undefined>((resolve) => {
    child.once('error', resolve);
    child.once('spawn', () => resolve(undefined));
  });
  if (failed) throw new Error(`anvil could not be started: ${failed.message}`);
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 200 && !(await rpcAnswers(url)); i++) await new Promise((r) => setTimeout(r, 25));
  if (!(await rpcAnswers(url))) {
    child.kill('SIGKILL');
    throw new Error(`anvil did not answer on ${url}`);
  }
  return {
    url,
    chainId,
    pid: child.pid,
    stop: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      }),
  };
}
