import { createServer, type Server } from 'node:http';
import { getAddressDecoder, getBase58Decoder, getBase64Encoder, getTransactionDecoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';
import { OperationStore } from '../../src/withdrawals/store/operation-store.js';
import { nonceAccountAddress } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';

/**
 * An RPC node that refuses a signed withdrawal with a failed preflight, as Agave answers when its
 * bank has not seen the vault's funding or a recipient's account (-32002), while the same signed
 * transaction reaches the chain through another node. The withdrawal must stay open (BROADCAST,
 * `refused`, its durable nonce held), never FAILED, and follow the chain: CONFIRMED when the
 * transaction lands, FAILED only once its invalidation (AdvanceNonceAccount alone on the same
 * nonce, signed through the custody emulator) has landed instead. A signature that does not
 * verify still ends FAILED at once.
 */

interface RpcError {
  code: number;
  message: string;
  data?: unknown;
}

/** Agave's preflight answer for a System transfer (instruction 2) from an account its bank holds no lamports for. */
const INSUFFICIENT_LAMPORTS: RpcError = {
  code: -32002,
  message: 'Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1',
  data: {
    err: { InstructionError: [2, { Custom: 1 }] },
    logs: [
      'Program 11111111111111111111111111111111 invoke [1]',
      'Transfer: insufficient lamports 0, need 100000000',
      'Program 11111111111111111111111111111111 failed: custom program error: 0x1',
    ],
    accounts: null,
    unitsConsumed: 150,
  },
};

/** A JSON-RPC node in front of LiteSVM that answers every sendTransaction of a refused transaction with its refusal, and passes the rest on. */
async function refusingNode(target: string) {
  const proxy = {
    url: '',
    host: '',
    /** Set: the next transaction sent is refused with it, and so is every later send of it. */
    refuseNext: undefined as RpcError | undefined,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
  const refusals = new Map<string, RpcError>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const call = JSON.parse(raw) as { id: number; method: string; params: unknown[] };
      if (call.method === 'sendTransaction') {
        const tx = getTransactionDecoder().decode(getBase64Encoder().encode(String(call.params[0])));
        const signature = getBase58Decoder().decode(Object.values(tx.signatures)[0]!);
        if (proxy.refuseNext) {
          refusals.set(signature, proxy.refuseNext);
          proxy.refuseNext = undefined;
        }
        const error = refusals.get(signature);
        if (error) return void res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ jsonrpc: '2.0', id: call.id, error }));
      }
      const answer = await fetch(target, { method: 'POST', headers: { 'content-type': 'application/json' }, body: raw });
      res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  proxy.url = `http://127.0.0.1:${port}`;
  proxy.host = `127.0.0.1:${port}`;
  return proxy;
}

interface Setup {
  node: LocalSolanaNode;
  rpc: Awaited<ReturnType<typeof refusingNode>>;
  loop: Loop;
}

async function setUp(env: Record<string, string>): Promise<Setup> {
  const node = await startLocalSolanaNode();
  const rpc = await refusingNode(node.url);
  const loop = await startLoop({ solanadev: { rpcUrl: rpc.url, tokens: [node.usdc] } }, { env: { RESEND_AFTER_SECONDS: '1', ...env } });
  return { node, rpc, loop };
}

async function tearDown(s: Setup | undefined): Promise<void> {
  await s?.loop.stop();
  await s?.rpc.close();
  await s?.node.stop();
}

const SOL = 1_000_000_000n;
const settled = (o: { status: string }) => o.status === 'CONFIRMED' || o.status === 'FAILED';
const everFailed = (view: { history: { status: string }[] }) => view.history.some((h) => h.status === 'FAILED');
const lamports = (s: Setup, a: string) => s.node.svm.getBalance(a as never) ?? 0n;

/** A vault with SOL and its nonce account (set up through the loop), and withdrawal A of 0.1 SOL whose every send the node refuses with `error`. */
async function refusedWithdrawal(s: Setup, error: RpcError) {
  const { node, rpc, loop } = s;
  const v = await loop.vault('solanadev');
  await node.fund(v.address, 'SOL', 2n * SOL);
  const setup = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
    key: WITHDRAW_KEY,
    body: { recipientAddress: await nonceAccountAddress(v.address), amount: '0.0015', description: 'nonce account' },
  });
  expect(setup.status, JSON.stringify(setup.body)).toBe(200);
  expect((await loop.waitFor(v.vaultId, setup.body.operationID, settled)).status).toBe('CONFIRMED');
  const to = getAddressDecoder().decode(ed25519Signer().publicKey.bytes);
  rpc.refuseNext = error;
  const res = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
    key: WITHDRAW_KEY,
    body: { recipientAddress: to, amount: '0.1', description: 'refused by one node', fee: 'LOW' },
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { v, to, id: res.body.operationID as string };
}

/** Sends withdrawal `id`'s stored signed transaction to the chain straight, as anyone holding it could; the node's answer. */
async function sendFromElsewhere(s: Setup, id: string): Promise<{ result?: string; error?: RpcError }> {
  const stored = await new OperationStore(s.loop.svc.core.redis, s.loop.svc.core.prefix).resolve(id);
  const wire = Buffer.from(stored!.signedTxs![0]!, 'hex').toString('base64');
  const res = await fetch(s.node.url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'sendTransaction', params: [wire, { encoding: 'base64' }] }),
  });
  return (await res.json()) as { result?: string; error?: RpcError };
}

describe('Solana: a failed preflight holds the withdrawal open', () => {
  let s: Setup | undefined;
  beforeAll(async () => {
    s = await setUp({});
  });
  afterAll(() => tearDown(s));

  it('insufficient lamports in one node’s preflight: held (refused, BROADCAST), the retry waits for the nonce, the transaction lands from elsewhere: both CONFIRMED, paid twice', async () => {
    const { loop, rpc } = s!;
    const { v, to, id } = await refusedWithdrawal(s!, INSUFFICIENT_LAMPORTS);
    const held = await loop.waitFor(v.vaultId, id, (o) => o.refused !== undefined);
    expect(held.status).toBe('BROADCAST');
    expect(held.refused.answer).toContain('Transaction simulation failed: Error processing Instruction 2: custom program error: 0x1');
    expect(held.attempts[0].refusals[0]).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', node: rpc.host });

    // The integrator retries with B while A is open: A still holds the vault's durable nonce.
    const retry = () =>
      loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
        key: WITHDRAW_KEY,
        body: { recipientAddress: to, amount: '0.1', description: 'the retry', fee: 'LOW' },
      });
    const early = await retry();
    expect(early.status).toBe(409);
    expect(early.body.errCode).toBe('ERR_NONCE_IN_USE');
    // A is sent again and refused again, and stays open.
    await loop.waitFor(v.vaultId, id, (o) => o.attempts[0].refusals.length >= 2, 10_000);
    expect(lamports(s!, to)).toBe(0n);

    // The same signed transaction reaches the chain through another node.
    const outside = await sendFromElsewhere(s!, id);
    expect(outside.result).toBe(held.txids[0]);
    const a = await loop.waitFor(v.vaultId, id, settled, 15_000);
    expect(a.status, JSON.stringify(a.history)).toBe('CONFIRMED');
    expect(everFailed(a)).toBe(false);
    expect(a.refused).toBeUndefined();

    const b = await retry();
    expect(b.status, JSON.stringify(b.body)).toBe(200);
    expect(b.body.appData.txs[0].serialized).not.toBe(held.appData.txs[0].serialized);
    expect((await loop.waitFor(v.vaultId, b.body.operationID, settled, 15_000)).status).toBe('CONFIRMED');
    // Paid exactly as many times as withdrawals CONFIRMED: two.
    expect(lamports(s!, to)).toBe(200_000_000n);
  });

  it('a signature that does not verify (-32003) proves it can never land: FAILED at once, nothing held', async () => {
    const { loop } = s!;
    const { v, to, id } = await refusedWithdrawal(s!, { code: -32003, message: 'Transaction signature verification failure' });
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'FAILED' || o.refused !== undefined, 15_000);
    expect(done.status).toBe('FAILED');
    expect(done.refused).toBeUndefined();
    expect(done.failureReason).toMatch(/signature verification failure/);
    expect(lamports(s!, to)).toBe(0n);
  });
});

describe('Solana: the invalidation of a refused withdrawal (INVALIDATE_REFUSED_AFTER_SECONDS)', () => {
  let s: Setup | undefined;
  beforeAll(async () => {
    s = await setUp({ INVALIDATE_REFUSED_AFTER_SECONDS: '1' });
  });
  afterAll(() => tearDown(s));

  it('AdvanceNonceAccount alone on the same nonce goes through custody and lands: FAILED, naming the refusal; the recipient got nothing, and the transfer can never land', async () => {
    const { loop } = s!;
    const { v, to, id } = await refusedWithdrawal(s!, {
      code: -32002,
      message: 'Transaction simulation failed: Error processing Instruction 2: invalid account data for instruction',
      data: { err: { InstructionError: [2, 'InvalidAccountData'] }, logs: [] },
    });
    const held = await loop.waitFor(v.vaultId, id, (o) => o.refused !== undefined);
    expect(held.refused.invalidateAfter).toBeDefined();
    const done = await loop.waitFor(v.vaultId, id, settled, 30_000);
    expect(done.status, JSON.stringify(done.history)).toBe('FAILED');
    expect(done.failureReason).toMatch(
      /^cancelled: the cancel transaction \w+ landed \(the original was refused by the node: .*invalid account data for instruction/,
    );
    expect(done.attempts.map((a: { kind: string; status: string }) => `${a.kind}:${a.status}`)).toEqual(['original:replaced', 'cancel:confirmed']);
    expect(done.attempts[1].operationID).toBeDefined();
    expect(lamports(s!, to)).toBe(0n);
    // Its nonce is gone: the transfer sent from anywhere is refused for good.
    const late = await sendFromElsewhere(s!, id);
    expect(late.error?.message).toMatch(/BlockhashNotFound|Blockhash not found/);
    expect(lamports(s!, to)).toBe(0n);
  });
});
