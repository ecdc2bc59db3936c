/**
 * A Bitcoin regtest node for tests and the sandbox: a real bcoin full node, in memory and
 * in-process, behind an Esplora-compatible HTTP facade on 127.0.0.1, and a Bitcoin Core
 * JSON-RPC facade on the same server at `/core-rpc` (core-rpc-facade.ts).
 *
 * DEVELOPMENT FACADES, NOT PRODUCTION. They implement only what this service's Bitcoin
 * adaptor calls, have no authentication, and the Esplora one adds dev-only routes:
 * `POST /dev/mine {blocks, address?}` and `POST /dev/faucet {address, amountSats}`.
 * Needs `NODE_BACKEND=js` in the environment before bcoin loads (set here if unset).
 */
import { createServer } from 'node:http';
import { freePort } from '../../../src/dev/free-port.js';
import { coreRpcHandler } from './core-rpc-facade.js';
import { esploraHandler } from './esplora-facade.js';
import { RegtestNode } from './regtest-node.js';

/** Where the Core JSON-RPC facade answers; every other path is Esplora's. */
const CORE_RPC_PATH = '/core-rpc';

export interface BitcoinRegtest {
  /** Esplora base URL, e.g. `http://127.0.0.1:40123`: the adaptor's `url` with `backend: 'esplora'`. */
  url: string;
  /** Bitcoin Core JSON-RPC URL over the same node: the adaptor's `url` with `backend: 'core'`. */
  coreRpcUrl: string;
  node: RegtestNode;
  /** Mines `n` blocks (to the faucet's key unless `address` is given); returns their hashes. */
  mine(n: number, address?: string): Promise<string[]>;
  /** Sends `sats` to `address` from mined coins and mines one block to confirm it; returns the txid. */
  faucet(address: string, sats: bigint | number): Promise<string>;
  /** Pays `count` outputs of `sats` each to `address` in one transaction and mines it; returns the txid. */
  fanOut(address: string, count: number, sats: bigint | number): Promise<string>;
  /** `invalidateblock`: the block (and its descendants) leave the best chain. */
  invalidate(blockHash: string): Promise<void>;
  stop(): Promise<void>;
}

export async function startBitcoinRegtest(opts: { port?: number } = {}): Promise<BitcoinRegtest> {
  const node = await RegtestNode.start();
  const port = opts.port ?? (await freePort());
  const esplora = esploraHandler(node);
  const coreRpc = coreRpcHandler(node);
  const server = createServer((req, res) => (new URL(req.url ?? '/', 'http://localhost').pathname === CORE_RPC_PATH ? coreRpc : esplora)(req, res));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  return {
    url: `http://127.0.0.1:${port}`,
    coreRpcUrl: `http://127.0.0.1:${port}${CORE_RPC_PATH}`,
    node,
    mine: (n, address) => node.mine(n, address),
    faucet: (address, sats) => node.faucet(address, BigInt(sats)),
    fanOut: (address, count, sats) => node.fanOut(address, count, BigInt(sats)),
    invalidate: (hash) => node.invalidate(hash),
    stop: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await node.stop();
    },
  };
}
