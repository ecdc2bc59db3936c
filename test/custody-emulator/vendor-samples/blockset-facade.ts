import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { revHex, type BcoinMeta } from '../../../adaptors/bitcoin/local-node/bcoin.js';
import { addressOf, NodeRejection, type RegtestNode } from '../../../adaptors/bitcoin/local-node/regtest-node.js';
import { freePort } from '../../../src/dev/free-port.js';

const CHAIN = 'bitcoin-testnet';

export interface BlocksetFacade {
  url: string;
  /** Transaction ids submitted through `POST /transactions`, in order. */
  submitted: string[];
  stop(): Promise<void>;
}

/**
 * The part of Blockset's REST API (api.blockset.com, now offline) that the vendor's
 * bitcoin/byow sample calls, over a bcoin regtest node, with the fields the sample reads:
 * - `GET /blocks` (its health check): `{_embedded: {blocks}}`, the tip;
 * - `GET /transactions?address=&include_raw=true`: `{_embedded: {transactions: [{transaction_id:
 *   "bitcoin-testnet:<txid>", identifier: <txid>, raw: <base64>, confirmations, _embedded:
 *   {transfers}}]}}`, where each output is a transfer `to_address` with `meta.n` (its index) and
 *   each input a transfer `from_address` with `meta.txid` (the coin it spends);
 * - `POST /transactions {data: <base64>}`: hands the transaction to the node's mempool and
 *   answers `{hash}`.
 * Any bearer token is taken. Test support only.
 */
export async function startBlocksetFacade(node: RegtestNode): Promise<BlocksetFacade> {
  const submitted: string[] = [];

  const transaction = async (meta: BcoinMeta, includeRaw: boolean) => {
    const tx = meta.tx;
    const txid = tx.txid();
    const id = `${CHAIN}:${txid}`;
    const view = await node.node.getMetaView(meta);
    const inputs = tx.inputs.map((input) => {
      const prev = input.isCoinbase() ? null : view.getOutputFor(input);
      return { input, prev, address: prev ? addressOf(prev.script.toRaw()) : undefined };
    });
    const firstFrom = inputs.find((i) => i.address)?.address;
    const transfers = [
      ...inputs
        .filter((i) => i.prev && i.address)
        .map((i, index) => ({
          transfer_id: `${id}:in:${index}`,
          blockchain_id: CHAIN,
          transaction_id: id,
          from_address: i.address,
          amount: { currency_id: `${CHAIN}:__native__`, amount: String(i.prev?.value) },
          meta: { txid: revHex(i.input.prevout.hash), n: String(i.input.prevout.index) },
        })),
      ...tx.outputs.map((o, n) => ({
        transfer_id: `${id}:out:${n}`,
        blockchain_id: CHAIN,
        transaction_id: id,
        ...(firstFrom ? { from_address: firstFrom } : {}),
        to_address: addressOf(o.script.toRaw()),
        amount: { currency_id: `${CHAIN}:__native__`, amount: String(o.value) },
        meta: { n: String(n) },
      })),
    ];
    return {
      transaction_id: id,
      identifier: txid,
      hash: txid,
      blockchain_id: CHAIN,
      confirmations: meta.height < 0 ? 0 : node.height - meta.height + 1,
      ...(includeRaw ? { raw: tx.toRaw().toString('base64') } : {}),
      _embedded: { transfers },
    };
  };

  const route = async (req: IncomingMessage, body: string): Promise<[number, unknown]> => {
    if (!/^Bearer \S+/.test(req.headers.authorization ?? '')) return [401, { message: 'a bearer token is needed' }];
    const url = new URL(req.url ?? '/', 'http://blockset');
    if (url.searchParams.get('blockchain_id') !== CHAIN) return [400, { message: `blockchain_id must be ${CHAIN}` }];
    if (req.method === 'GET' && url.pathname === '/blocks') {
      return [200, { _embedded: { blocks: [{ blockchain_id: CHAIN, height: node.height, hash: await node.blockHash(node.height) }] } }];
    }
    if (req.method === 'GET' && url.pathname === '/transactions') {
      const target = node.toBcoinAddress(url.searchParams.get('address') ?? '');
      if (!target) return [400, { message: 'address is not a regtest address' }];
      const metas = await node.metasOf(target.addr);
      const include = url.searchParams.get('include_raw') === 'true';
      return [200, { _embedded: { transactions: await Promise.all(metas.map((m) => transaction(m, include))) } }];
    }
    if (req.method === 'POST' && url.pathname === '/transactions') {
      const { data } = JSON.parse(body) as { data?: string };
      if (!data) return [400, { message: 'data (base64) is needed' }];
      try {
        const txid = await node.submit(Buffer.from(data, 'base64').toString('hex'));
        submitted.push(txid);
        return [200, { hash: txid, transaction_id: `${CHAIN}:${txid}`, blockchain_id: CHAIN }];
      } catch (e) {
        if (e instanceof NodeRejection) return [400, { message: e.reason }];
        throw e;
      }
    }
    return [404, { message: 'not served by this facade' }];
  };

  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      route(req, Buffer.concat(chunks).toString('utf8'))
        .then(([status, json]) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(json)))
        .catch((e: unknown) => res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({ message: String(e) })));
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    submitted,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
