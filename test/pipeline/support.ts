/** Shared pieces of the signing-loop robustness tests (not a test file itself). */
import { createServer, Socket, type Server } from 'node:net';
import { JsonRpcProvider } from 'ethers';
import type { BroadcastResult, LedgerAdaptor, SendOutcome, SignedTx } from '../../src/ledger/adaptor.js';
import { signCallback } from '../../src/security/callback-hmac.js';
import { startTestChain, type EvmNodeKind, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { READ_KEY, TEST_CALLBACK_SECRET, WITHDRAW_KEY, type TestService } from '../helpers/service.js';

export const RECIPIENT = '0x00000000000000000000000000000000000000B0';

export interface BroadcastCounter {
  /** Transactions handed to the adaptor's broadcast or broadcastMany (every attempt, successful or not). */
  calls: number;
  /** Attempts the node refused, or round trips that failed. */
  failures: number;
  /** txids of the attempts that succeeded, in order. */
  sent: string[];
  /** How many transactions each broadcastMany call was given, in order. */
  batches: number[];
  /** Puts the adaptor's own broadcast back. */
  restore(): void;
}

/**
 * Wraps `broadcast` and `broadcastMany` of one ledger's adaptor (the registry hands out the same
 * plain object to the routes and the workers of this process), counting each transaction. `around`
 * may replace what a send does; it gets the real broadcast to call. With `around`, a
 * `broadcastMany` sends its transactions one by one through it, in order, each answered on its own.
 */
export function countBroadcasts(
  svc: TestService,
  ledgerId: string,
  around?: (real: LedgerAdaptor['broadcast'], tx: SignedTx) => ReturnType<LedgerAdaptor['broadcast']>,
): BroadcastCounter {
  const adaptor = svc.core.registry.get(ledgerId) as LedgerAdaptor & Pick<LedgerAdaptor, 'broadcast' | 'broadcastMany'>;
  const real = adaptor.broadcast;
  const realMany = adaptor.broadcastMany;
  const counter: BroadcastCounter = {
    calls: 0,
    failures: 0,
    sent: [],
    batches: [],
    restore: () => {
      adaptor.broadcast = real;
      adaptor.broadcastMany = realMany;
    },
  };
  const answered = (o: SendOutcome): SendOutcome => {
    if (o.ok) counter.sent.push(o.result.txid);
    else counter.failures++;
    return o;
  };
  // Counted as it starts (a call may never end: a worker killed mid-send); its answer as it ends.
  const once = async (send: () => Promise<BroadcastResult>): Promise<SendOutcome> => {
    counter.calls++;
    return answered(
      await send().then(
        (result): SendOutcome => ({ ok: true, result }),
        (error: unknown): SendOutcome => ({ ok: false, error }),
      ),
    );
  };
  adaptor.broadcast = async (tx) => {
    const o = await once(() => (around ? around(real, tx) : real(tx)));
    if (!o.ok) throw o.error;
    return o.result;
  };
  if (realMany) {
    adaptor.broadcastMany = async (txs) => {
      counter.batches.push(txs.length);
      if (around) {
        const outcomes: SendOutcome[] = [];
        for (const tx of txs) outcomes.push(await once(() => around(real, tx)));
        return outcomes;
      }
      counter.calls += txs.length;
      const outcomes = await realMany(txs).catch((e: unknown) => {
        counter.failures++;
        throw e;
      });
      return outcomes.map(answered);
    };
  }
  return counter;
}

export const withdraw = (svc: TestService, vaultId: string, body: object) =>
  svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });

/** POSTs a callback with the exact raw body the HMAC covers. */
export async function postCallback(
  svc: TestService,
  ledgerId: string,
  body: unknown,
  opts: { secret?: string; nowMs?: number; headers?: Record<string, string>; raw?: string } = {},
): Promise<{ status: number; body: any; headers: Headers }> {
  const raw = opts.raw ?? JSON.stringify(body);
  const headers = { ...signCallback(opts.secret ?? TEST_CALLBACK_SECRET, raw, opts.nowMs), ...opts.headers };
  return svc.call('POST', `/api/v1.0/sign_complete_callback?ledgerId=${encodeURIComponent(ledgerId)}`, { rawBody: raw, headers });
}

/** The body the custody service sends for a completed sign operation of the custody emulator. */
export function signedCallbackBody(loop: Pick<Loop, 'custody'>, operationID: string) {
  const op = loop.custody.control.operation(operationID);
  if (!op || op.status !== 'COMPLETED') throw new Error(`custody operation ${operationID} is not completed: ${JSON.stringify(op)}`);
  return { publicKeys: op.publicKeys, providerData: op.providerData, dataToSign: op.dataToSign, signatures: op.signatures, v: op.v };
}

/** Waits until `check` returns a value other than undefined/false. */
export async function until<T>(what: string, check: () => T | undefined | false | Promise<T | undefined | false>, timeoutMs = 15_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await check();
    if (v !== undefined && v !== false) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

export function provider(url: string): JsonRpcProvider {
  return new JsonRpcProvider(url, undefined, { cacheTimeout: -1, staticNetwork: true });
}

/** Every transaction sent from `address` on the (automining) dev chain, by scanning its blocks. */
export async function txsFrom(p: JsonRpcProvider, address: string): Promise<string[]> {
  const height = await p.getBlockNumber();
  const found: string[] = [];
  for (let n = 0; n <= height; n++) {
    const block = await p.getBlock(n, true);
    for (const tx of block?.prefetchedTransactions ?? []) if (tx.from.toLowerCase() === address.toLowerCase()) found.push(tx.hash);
  }
  return found;
}

/**
 * A TCP proxy in front of a back end that can be switched off (every connection, open or new,
 * is cut) and on again, on a fixed port: the back end going down and coming back.
 */
export interface SwitchableProxy {
  url: string;
  port: number;
  up: boolean;
  off(): void;
  on(): void;
  close(): Promise<void>;
}

export async function switchableProxy(target: { host: string; port: number }, scheme = 'http'): Promise<SwitchableProxy> {
  const open = new Set<Socket>();
  const state = { up: true };
  const server: Server = createServer((client) => {
    if (!state.up) {
      client.destroy();
      return;
    }
    const upstream = new Socket();
    upstream.connect(target.port, target.host);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => undefined);
    }
    client.pipe(upstream);
    upstream.pipe(client);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  const proxy: SwitchableProxy = {
    url: `${scheme}://127.0.0.1:${port}`,
    port,
    get up() {
      return state.up;
    },
    off() {
      state.up = false;
      for (const s of open) s.destroy();
    },
    on() {
      state.up = true;
    },
    close: async () => {
      proxy.off();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
  return proxy;
}

/** The Ethereum signing loop most robustness tests run on: anvil, the loop, a provider, a broadcast counter. */
export interface EthLoop {
  chain: TestChain;
  loop: Loop;
  p: JsonRpcProvider;
  counter: BroadcastCounter;
  /** Present when the service reaches anvil through a switchable proxy. */
  node?: SwitchableProxy;
  stop(): Promise<void>;
}

export async function startEthLoop(
  opts: { proxied?: boolean; env?: Record<string, string>; extraLedgers?: (rpcUrl: string) => Record<string, unknown>; node?: EvmNodeKind } = {},
): Promise<EthLoop> {
  const chain = await startTestChain(opts.node);
  const node = opts.proxied ? await switchableProxy({ host: '127.0.0.1', port: Number(new URL(chain.anvil.url).port) }) : undefined;
  const rpcUrl = node?.url ?? chain.anvil.url;
  const loop = await startLoop({ ethdev: { rpcUrl, confirmations: 1 }, ...opts.extraLedgers?.(rpcUrl) }, { env: opts.env });
  const p = provider(chain.anvil.url);
  return {
    chain,
    loop,
    p,
    node,
    counter: countBroadcasts(loop.svc, 'ethdev'),
    stop: async () => {
      p.destroy();
      await loop.stop();
      await node?.close();
      await chain.stop();
    },
  };
}

/**
 * Makes the custody connector of `loop` report the sign operations whose ids are in the
 * returned set as still PENDING (the quorum has not approved), so reconciliation does not
 * fetch their signatures either; the test adds and removes ids.
 */
export function holdBackSignatures(loop: Pick<Loop, 'svc'>): Set<string> {
  const unsigned = new Set<string>();
  const custody = loop.svc.pipeline!.deps.custody;
  const realLookup = custody.getSignOperation.bind(custody);
  custody.getSignOperation = async (id) => {
    const op = await realLookup(id);
    return unsigned.has(id) ? { ...op, status: 'PENDING', statusText: undefined, isApproved: false, signatures: [], v: [] } : op;
  };
  // The same service takes the cancel a sign timeout sends for one of these, though it signed it.
  const realCancel = custody.cancelOperation.bind(custody);
  custody.cancelOperation = async (id) => (unsigned.has(id) ? undefined : realCancel(id));
  return unsigned;
}

/**
 * Two withdrawals of a funded vault, the later signed first: the first one's callback is
 * dropped (signed by the quorum, its signatures held back from reconciliation by `unsigned`,
 * see holdBackSignatures), then the second is created and waits SIGNED. `release` lets the
 * first one through (the custody service resends its callback) and answers the resend's status.
 */
export async function laterSignedFirst(loop: Loop, unsigned: Set<string>, vaultId: string, descriptions: [string, string]) {
  loop.custody.control.setFaults({ dropCallback: true }, vaultId);
  const first = await withdraw(loop.svc, vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: descriptions[0] });
  unsigned.add(first.body.operationID);
  await until('the first to be signed by the quorum', () => loop.custody.control.operation(first.body.operationID)?.status === 'COMPLETED');
  loop.custody.control.setFaults({}, vaultId);
  const second = await withdraw(loop.svc, vaultId, { recipientAddress: RECIPIENT, amount: '0.02', description: descriptions[1] });
  const waiting = await loop.waitFor(vaultId, second.body.operationID, (o) => o.status === 'SIGNED');
  const release = async (): Promise<number> => {
    unsigned.delete(first.body.operationID);
    return (await fetch(`${loop.custody.url}/operations/sign/${first.body.operationID}/resend`, { method: 'POST' })).status;
  };
  return { first, second, waiting, release };
}

/** A withdrawal as GET /vaults/{vaultId}/withdrawals/{operationID} answers it. */
export const withdrawalStatus = async (loop: Pick<Loop, 'svc'>, vaultId: string, operationID: string) =>
  (await loop.svc.call('GET', `/api/v1.0/vaults/${vaultId}/withdrawals/${operationID}`, { key: READ_KEY })).body;
