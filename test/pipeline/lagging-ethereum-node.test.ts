import { createServer, type Server } from 'node:http';
import type { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { provider, RECIPIENT, until, withdraw } from './support.js';

interface Call {
  id: number;
  method: string;
  params: unknown[];
}
type Backend = 'fresh' | 'lagging';

/**
 * A JSON-RPC gateway in front of two nodes that routes each call of a batch on its own (as eRPC /
 * dshackle / provider gateways do). `route` picks the node per call; `lose` may drop the answer.
 */
async function gateway(fresh: string) {
  const gw = {
    url: '',
    lagging: '' as string,
    route: ((_c: Call) => 'fresh') as (c: Call) => Backend,
    lose: ((_c: Call) => false) as (c: Call) => boolean,
    log: [] as { method: string; to: Backend; result: unknown }[],
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const server: Server = createServer((req, res) => {
    let raw = '';
    req.on('data', (c) => (raw += c));
    req.on('end', async () => {
      const body = JSON.parse(raw) as Call | Call[];
      const calls = [body].flat();
      let lost = false;
      const answers = await Promise.all(
        calls.map(async (c) => {
          const to = gw.lagging ? gw.route(c) : 'fresh';
          const r = await fetch(to === 'lagging' ? gw.lagging : fresh, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: JSON.stringify(c),
          });
          const j = (await r.json()) as { result?: unknown; error?: unknown };
          gw.log.push({ method: c.method, to, result: j.result ?? j.error });
          if (gw.lose(c)) lost = true;
          return j;
        }),
      );
      if (lost) return void res.writeHead(502).end('bad gateway');
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  gw.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return gw;
}

const rpc = async <T>(url: string, method: string, params: unknown[] = []): Promise<T> => {
  const r = (await (
    await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }) })
  ).json()) as { result: T; error?: { message: string } };
  if (r.error) throw new Error(r.error.message);
  return r.result;
};

/**
 * Behind a JSON-RPC gateway that routes each call on its own (eRPC, provider gateways), the
 * lookups by hash can reach a replica that lags behind the block that mined our transaction
 * while the nonce is read from an up-to-date node. "Not known by hash" plus "nonce passed"
 * from two nodes is no proof: the withdrawal must not end FAILED while its transaction is
 * mined (the integrator would pay again). Only the block that used the nonce decides.
 */
describe('Ethereum behind a gateway with a lagging replica', () => {
  let chain: TestChain;
  let loop: Loop;
  let gw: Awaited<ReturnType<typeof gateway>>;
  let lagging: LocalAnvil | undefined;
  let p: JsonRpcProvider;

  beforeAll(async () => {
    chain = await startTestChain();
    gw = await gateway(chain.anvil.url);
    loop = await startLoop({ ethdev: { rpcUrl: gw.url, confirmations: 1 } });
    p = provider(chain.anvil.url);
  });
  afterAll(async () => {
    p?.destroy();
    await loop?.stop();
    await gw?.close();
    await lagging?.stop();
    await chain?.stop();
  });

  /** A second node holding the chain as it is now and importing nothing more (restarted, syncing). */
  const freezeLaggingReplica = async () => {
    await lagging?.stop();
    const dump = await rpc<string>(chain.anvil.url, 'anvil_dumpState');
    lagging = await startAnvil();
    await rpc(lagging.url, 'anvil_loadState', [dump]);
    gw.lagging = lagging.url;
  };
  const fundedVault = async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    return v;
  };

  /** While the lookups lag the withdrawal stays BROADCAST; once they catch up it is CONFIRMED and paid once. */
  async function heldThenConfirmed(vaultId: string, id: string, before: bigint) {
    await loop.waitFor(vaultId, id, (o) => o.status === 'BROADCAST');
    // The watcher has looked through the lagging replica, and acted on its answer, several times
    // (each of its rounds asks by hash, so a round that starts shows the one before it has ended),
    // or the withdrawal has left BROADCAST.
    const from = gw.log.length;
    const lookedAgain = () => gw.log.slice(from).filter((l) => l.to === 'lagging').length >= 6;
    await until(
      'rounds of lookups answered by the lagging replica',
      async () => lookedAgain() || (await loop.waitFor(vaultId, id, () => true)).status !== 'BROADCAST',
      30_000,
    );
    const meanwhile = await loop.waitFor(vaultId, id, () => true);
    expect(meanwhile.status, JSON.stringify(meanwhile.history)).toBe('BROADCAST');
    gw.route = () => 'fresh';
    const done = await loop.waitFor(vaultId, id, (o) => o.status === 'FAILED' || o.status === 'CONFIRMED', 30_000);
    expect(done.status, done.failureReason).toBe('CONFIRMED');
    expect((await p.getBalance(RECIPIENT)) - before).toBe(10n ** 16n);
  }

  it('lookups by hash answered by the lagging replica, the nonce by an up-to-date node: BROADCAST, then CONFIRMED, never FAILED', async () => {
    const v = await fundedVault();
    await freezeLaggingReplica();
    gw.route = (c) => (c.method === 'eth_getTransactionReceipt' || c.method === 'eth_getTransactionByHash' ? 'lagging' : 'fresh');
    const before = await p.getBalance(RECIPIENT);
    const w = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'lagging lookups' });
    expect(w.status).toBe(200);
    await heldThenConfirmed(v.vaultId, w.body.operationID, before);
  });

  it('a send whose answer was lost is refused "nonce too low" when sent again, and the lookup lags: not FAILED', async () => {
    const v = await fundedVault();
    await freezeLaggingReplica();
    let lostOnce = false;
    gw.lose = (c) => {
      if (!lostOnce && c.method === 'eth_sendRawTransaction') return (lostOnce = true);
      return false;
    };
    gw.route = (c) => (c.method === 'eth_getTransactionByHash' || c.method === 'eth_getTransactionReceipt' ? 'lagging' : 'fresh');
    const before = await p.getBalance(RECIPIENT);
    const w = await withdraw(loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'lost answer' });
    expect(w.status).toBe(200);
    await heldThenConfirmed(v.vaultId, w.body.operationID, before);
    expect(lostOnce).toBe(true);
    gw.lose = () => false;
  });
});
