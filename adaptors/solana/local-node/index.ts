import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { LiteSVM } from 'litesvm';
import { SvmRpcFacade, type FacadeOptions } from './rpc-facade.js';
import { LocalMint } from './mint.js';

export interface LocalSolanaNode {
  /** JSON-RPC URL of the facade. */
  url: string;
  svm: LiteSVM;
  facade: SvmRpcFacade;
  /** The demo SPL token (USDC, 6 decimals), minted by a key the node holds. */
  usdc: { symbol: string; mint: string; decimals: number };
  /** Sends lamports (SOL) or demo-token units to `owner`; returns the funding signature. */
  fund(owner: string, asset: string, units: bigint): Promise<string>;
  stop(): Promise<void>;
}

const MAX_BODY = 2 * 1024 * 1024;
/** How often the node produces an empty block while something it landed is not rooted yet. */
const DEFAULT_SLOT_MS = 100;

export interface LocalSolanaNodeOptions extends FacadeOptions {
  port?: number;
  /**
   * Milliseconds between the empty blocks the node produces while a transaction it landed is
   * not rooted yet (the cluster voting on and rooting it); 0: none, the caller advances the
   * node itself (`facade.advance`). Default 100 (mainnet: 400).
   */
  slotMs?: number;
}

/**
 * A local Solana node for development and tests: LiteSVM in-process (with the default
 * programs: System, SPL Token, Associated Token Account) behind the JSON-RPC facade, on a
 * free port of 127.0.0.1. The node produces a block for every transaction and, while one of
 * them is not rooted yet, an empty block every `slotMs`: a transaction goes from `processed` to
 * `finalized` in `finalityDepth` slots, then an idle node stays where it is.
 */
export async function startLocalSolanaNode(opts: LocalSolanaNodeOptions = {}): Promise<LocalSolanaNode> {
  // The facade applies the transaction-age rule itself (see lifetime.ts): LiteSVM alone would
  // accept only its latest blockhash.
  const svm = new LiteSVM().withTransactionHistory(10_000n).withBlockhashCheck(false);
  const facade = new SvmRpcFacade(svm, { finalityDepth: opts.finalityDepth });
  const slotMs = opts.slotMs ?? DEFAULT_SLOT_MS;
  const clock =
    slotMs > 0
      ? setInterval(() => {
          if (facade.unrooted()) facade.nextSlot();
        }, slotMs).unref()
      : undefined;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      let answer: unknown;
      try {
        const body: unknown = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        answer = Array.isArray(body) ? body.map((b) => facade.handle(b)) : facade.handle(body);
      } catch {
        answer = { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } };
      }
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const mint = LocalMint.create(svm, facade, 6);
  const usdc = { symbol: 'USDC', mint: mint.address, decimals: 6 };
  return {
    url,
    svm,
    facade,
    usdc,
    fund: async (owner, asset, units) => {
      if (asset === 'SOL') return mint.airdrop(owner, units);
      if (asset === usdc.symbol) return mint.mintTo(owner, units);
      throw new Error(`the local node funds SOL and ${usdc.symbol}, not ${asset}`);
    },
    stop: () => {
      clearInterval(clock);
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
