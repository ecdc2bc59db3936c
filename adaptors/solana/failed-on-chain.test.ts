import { createServer, type Server } from 'node:http';
import { getAddressDecoder, type Address } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';
import { nonceAccountAddress } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';

/**
 * A withdrawal whose transaction lands on chain with an error, through the whole service and the
 * local node's commitment model: between the node's preflight and the leader running it, the
 * vault's SOL is spent elsewhere, so the transfer fails after its fee is charged and lands with
 * the runtime's error. The withdrawal stays BROADCAST (noting the failure) until the block is
 * finalized, the ledger's commitment, then ends FAILED with the node's error; the recipient got
 * nothing.
 */

const SOL = 1_000_000_000n;
/** What the vault holds once "spent elsewhere": its fee, not the 0.1 SOL transfer. */
const LEFT = 50_000_000n;

/**
 * An RPC node in front of the local one. Armed with a vault address, the next sendTransaction
 * finds that vault holding LEFT lamports only when the leader runs it (preflight passed at the
 * RPC node before the other spend): forwarded with skipPreflight, it lands with its error.
 */
async function racingNode(node: LocalSolanaNode) {
  const proxy = { url: '', armed: undefined as Address | undefined, close: () => new Promise<void>((r) => server.close(() => r())) };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const call = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { method: string; params: [unknown, Record<string, unknown>?] };
      if (call.method === 'sendTransaction' && proxy.armed) {
        const account = node.svm.getAccount(proxy.armed);
        if (!account.exists) throw new Error('the armed vault has no account');
        node.svm.setAccount({ ...account, lamports: LEFT as never });
        proxy.armed = undefined;
        call.params[1] = { ...call.params[1], skipPreflight: true };
      }
      const answer = await fetch(node.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(call) });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return proxy;
}

describe('Solana: a withdrawal that fails on chain', () => {
  let node: LocalSolanaNode;
  let rpc: Awaited<ReturnType<typeof racingNode>>;
  let loop: Loop;
  beforeAll(async () => {
    // No clock: the test roots blocks itself, so it can look at the withdrawal before the threshold.
    node = await startLocalSolanaNode({ slotMs: 0 });
    rpc = await racingNode(node);
    loop = await startLoop({ solanadev: { rpcUrl: rpc.url, tokens: [node.usdc] } });
  });
  afterAll(async () => {
    await loop?.stop();
    await rpc?.close();
    await node?.stop();
  });

  it('lands with its error, its fee paid: BROADCAST until finalized, then FAILED with the node’s error; nothing paid', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', 2n * SOL);
    const setup = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: await nonceAccountAddress(v.address), amount: '0.0015', description: 'nonce account' },
    });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    // Whatever lands while the setup is followed is rooted, as the cluster would.
    const done = await loop.waitFor(v.vaultId, setup.body.operationID, (o) => {
      node.facade.root();
      return o.status === 'CONFIRMED' || o.status === 'FAILED';
    });
    expect(done.status).toBe('CONFIRMED');

    const to = getAddressDecoder().decode(ed25519Signer().publicKey.bytes);
    rpc.armed = v.address as Address;
    const res = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: to, amount: '0.1', description: 'fails on chain', fee: 'LOW' },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.operationID as string;
    const error = '{"InstructionError":[2,{"Custom":1}]}';
    // Landed with its error, seen at `processed`: noted, not final.
    const noted = await loop.waitFor(v.vaultId, id, (o) =>
      o.history.some((h: { detail?: string }) => h.detail?.includes(`failed (${error}); FAILED once it has 1 confirmations`)),
    );
    expect(noted.status).toBe('BROADCAST');
    expect(node.facade.executed()).toContain(noted.txids[0]);
    // Confirmed by the cluster, still below the ledger's commitment (finalized).
    node.facade.advance(1);
    const statuses = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'getSignatureStatuses', params: [[noted.txids[0]]] }),
    });
    expect(((await statuses.json()) as { result: { value: unknown[] } }).result.value[0]).toMatchObject({
      confirmationStatus: 'confirmed',
      err: JSON.parse(error),
    });
    expect((await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${id}`, { key: WITHDRAW_KEY })).body.status).toBe('BROADCAST');

    node.facade.root();
    const failed = await loop.waitFor(v.vaultId, id, (o) => o.status !== 'BROADCAST');
    expect(failed.status).toBe('FAILED');
    expect(failed.failureReason).toBe(`transaction failed on the ledger: ${error}`);
    expect(failed.attempts.map((a: { status: string }) => a.status)).toEqual(['failed']);
    expect(node.svm.getBalance(to as Address) ?? 0n).toBe(0n);
    // The fee was charged, and only the fee.
    expect(node.svm.getBalance(v.address as Address)).toBe(LEFT - BigInt(failed.attempts[0].fee));
  });
});
