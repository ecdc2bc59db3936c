import { getAddressDecoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseAmount } from '../../src/ledger/amounts.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';
import { nonceAccountAddress } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { NONCE_ACCOUNT_SPACE, readNonceAccount } from './logic/accounts.js';
import { LAMPORTS_PER_SIGNATURE } from './logic/fees.js';
import { SolanaRpc } from './network/rpc.js';

const SOL = 1_000_000_000n;
const settled = (o: { status: string }) => o.status === 'CONFIRMED' || o.status === 'FAILED';
const recipient = () => getAddressDecoder().decode(ed25519Signer().publicKey.bytes);

/** LiteSVM and the whole loop for one describe (started before its tests, stopped after), and the calls its tests make. */
function onLocalNode(env: Record<string, string>) {
  let node: LocalSolanaNode | undefined;
  let loop: Loop | undefined;
  beforeAll(async () => {
    node = await startLocalSolanaNode();
    loop = await startLoop({ solanadev: { rpcUrl: node.url, tokens: [node.usdc] } }, { env });
  });
  afterAll(async () => {
    await loop?.stop();
    await node?.stop();
  });
  const running = () => loop as Loop;
  return {
    node: () => node as LocalSolanaNode,
    loop: running,
    lamports: (a: string) => node?.svm.getBalance(a as never) ?? 0n,
    post: (vaultId: string, body: Record<string, unknown>) =>
      running().svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body }),
    get: async (vaultId: string, id: string) => (await running().svc.call('GET', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}`, { key: WITHDRAW_KEY })).body,
  };
}

/**
 * A vault's first withdrawal needs its durable-nonce account: the service makes it first, as a
 * withdrawal of its own with its own sign request, then crafts the withdrawal and sends it to be
 * signed. Through the whole service and the custody emulator, on LiteSVM.
 */
describe('Solana: the first withdrawal of a vault sets up its nonce account by itself', () => {
  // Reconciliation at its defaults (120 s): the confirm job of the setup moves the withdrawal on.
  const { lamports, post, get, loop: running, node: started } = onLocalNode({});
  let node: LocalSolanaNode;
  let loop: Loop;
  let rent: bigint;
  beforeAll(() => {
    node = started();
    loop = running();
    rent = node.svm.minimumBalanceForRentExemption(BigInt(NONCE_ACCOUNT_SPACE));
  });

  it('answers at once with the setup it made, pays it, then pays the withdrawal: one id throughout, the rent and both fees accounted', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', 2n * SOL);
    const nonce = await nonceAccountAddress(v.address);
    const to = recipient();

    const res = await post(v.vaultId, { recipientAddress: to, amount: '0.1', description: 'first payout' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body).toMatchObject({
      status: 'EXECUTING',
      setup: { kind: 'nonce-account', recipientAddress: nonce, amount: rent.toString(), status: 'waiting' },
    });
    // Nothing of this withdrawal went to be signed yet: no custody operation id.
    expect(res.body.operationID).toBeUndefined();
    const id = res.body.withdrawalId as string;

    const done = await loop.waitFor(v.vaultId, id, settled);
    expect(done.status, JSON.stringify(done)).toBe('CONFIRMED');
    expect(lamports(to)).toBe(100_000_000n);
    const [acc] = await new SolanaRpc(node.url, fetch).getMultipleAccounts([nonce]);
    expect(readNonceAccount(acc!, nonce).authority).toBe(v.address);

    const setupId = done.setup.withdrawalId as string;
    const setup = await get(v.vaultId, setupId);
    expect(setup).toMatchObject({ status: 'CONFIRMED', setupFor: id, appData: { request: { recipientAddress: nonce } } });
    expect(setup.operationID).toBeDefined();
    expect(setup.operationID).not.toBe(done.operationID);
    expect(done.setup).toMatchObject({ status: 'done', txids: setup.txids, fee: LAMPORTS_PER_SIGNATURE.toString() });
    // The vault paid the amount, the rent and the two transactions' fees, nothing else.
    const fees = BigInt(done.setup.fee) + BigInt(done.attempts[0].fee);
    expect(lamports(v.address)).toBe(2n * SOL - 100_000_000n - rent - fees);
    // Both are the vault's withdrawals, and the waiting one is found by either id.
    const list = (await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: WITHDRAW_KEY })).body;
    expect(list.items.map((o: { withdrawalId: string }) => o.withdrawalId).sort()).toEqual([id, setupId].sort());
    expect((await get(v.vaultId, done.operationID)).withdrawalId).toBe(id);
    expect(done.history.map((h: { detail?: string }) => h.detail ?? '')).toContainEqual(expect.stringContaining(`setup ${setupId} confirmed`));

    // The next withdrawal needs no setup.
    const next = await post(v.vaultId, { recipientAddress: to, amount: '0.2', description: 'second payout' });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
    expect(next.body.setup).toBeUndefined();
    expect(next.body.operationID).toBeDefined();
    expect((await loop.waitFor(v.vaultId, next.body.withdrawalId, settled)).status).toBe('CONFIRMED');
    expect(lamports(to)).toBe(300_000_000n);
  });

  it('a vault that cannot pay the setup is refused before anything is stored, naming what it needs', async () => {
    const v = await loop.vault('solanadev');
    // A wallet that exists (its own rent-exempt minimum) but cannot add the nonce account's rent.
    await node.fund(v.address, 'SOL', node.svm.minimumBalanceForRentExemption(0n) + rent / 2n);
    const res = await post(v.vaultId, { recipientAddress: recipient(), amount: '0.0001', description: 'too poor' });
    expect(res.status, JSON.stringify(res.body)).toBe(422);
    expect(res.body.errCode).toBe('ERR_INSUFFICIENT_FUNDS');
    expect(parseAmount(res.body.required, 9)).toBeGreaterThan(parseAmount(res.body.available, 9));
    expect(res.body.details).toContain('nonce');
    const list = (await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: WITHDRAW_KEY })).body;
    expect(list.items).toEqual([]);
  });

  it('a withdrawal waiting for its setup can be canceled at once; the setup is a withdrawal of its own, canceled on its own', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', SOL);
    loop.custody.control.setFaults({ holdApprovals: true }, v.vaultId);
    const res = await post(v.vaultId, { recipientAddress: recipient(), amount: '0.1', description: 'canceled while waiting' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const id = res.body.withdrawalId as string;
    const setupId = res.body.setup.withdrawalId as string;
    const cancel = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${id}/cancel`, { key: WITHDRAW_KEY });
    expect(cancel.status, JSON.stringify(cancel.body)).toBe(200);
    expect(cancel.body).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('canceled on request while it waited') });
    // The setup waits for its quorum still (its sign request is at the custody service).
    const setup = await get(v.vaultId, setupId);
    expect(setup).toMatchObject({ status: 'EXECUTING', setupFor: id });
    expect(loop.custody.control.operation(setup.operationID)?.status).toBe('PENDING');
    const cancelSetup = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${setupId}/cancel`, { key: WITHDRAW_KEY });
    expect(cancelSetup.status, JSON.stringify(cancelSetup.body)).toBe(200);
    expect(loop.custody.control.operation(setup.operationID)?.status).toBe('CANCELED');
    expect(lamports(v.address)).toBe(SOL);
  });
});

describe('Solana: a vault setup that fails', () => {
  // A setup ended before it was sent is seen by reconciliation: once a second here.
  const { lamports, post, get, loop: running, node: started } = onLocalNode({ RECONCILE_AFTER_SECONDS: '1', RECONCILE_INTERVAL_SECONDS: '1' });
  let node: LocalSolanaNode;
  let loop: Loop;
  beforeAll(() => {
    node = started();
    loop = running();
  });

  it('a setup the quorum declines fails the withdrawal that waited for it, with the reason, and nothing is paid', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', SOL);
    loop.custody.control.setFaults({ end: 'DECLINED', notifyEnd: true }, v.vaultId);
    const to = recipient();
    const res = await post(v.vaultId, { recipientAddress: to, amount: '0.1', description: 'declined setup' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const failed = await loop.waitFor(v.vaultId, res.body.withdrawalId, settled);
    expect(failed.status).toBe('FAILED');
    expect(failed.setup.status).toBe('failed');
    expect(failed.failureReason).toContain(`setup (withdrawal ${failed.setup.withdrawalId}) failed`);
    expect((await get(v.vaultId, failed.setup.withdrawalId)).status).toBe('FAILED');
    expect(lamports(to)).toBe(0n);
    expect(lamports(v.address)).toBe(SOL);
  });
});
