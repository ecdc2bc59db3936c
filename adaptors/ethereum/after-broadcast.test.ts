import { ContractFactory, Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';
import { RECIPIENT, startEthLoop, until, withdraw, type EthLoop } from '../../test/pipeline/support.js';
import { compileSolidity } from './local-node/compile-demo-token.js';
import { DEPLOYER_KEY } from './test-kit.js';

const ETH = 10n ** 18n;

/** A recipient that refuses payments while closed (a paused or blocked receiver): a payment to it then reverts. */
const GATE = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract Gate {
  bool public closed;
  function setClosed(bool c) external { closed = c; }
  receive() external payable { require(!closed, "closed"); }
}`;

/**
 * After the broadcast on a real anvil node with automining off, so transactions wait in its
 * pool the way they do on a busy chain: stuck, speed-up, cancel, dropped and reorganised.
 */
describe('after the broadcast on Ethereum (anvil)', () => {
  let e: EthLoop;
  const rpc = (method: string, params: unknown[] = []) => e.p.send(method, params);
  const post = (vaultId: string, id: string, kind: string, body: object = {}) =>
    e.loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}/${kind}`, { key: WITHDRAW_KEY, body });

  beforeAll(async () => {
    e = await startEthLoop({
      env: { STUCK_AFTER_SECONDS: '1', RESEND_AFTER_SECONDS: '1', RECONCILE_AFTER_SECONDS: '1' },
      extraLedgers: (rpcUrl) => ({ slowdev: { family: 'ethereum', chainId: 31337, rpcUrl, confirmations: 3 } }),
    });
    await rpc('evm_setAutomine', [false]);
  }, 60_000);
  afterAll(async () => {
    await e?.stop();
  });

  async function broadcastWithdrawal(ledgerId = 'ethdev', amount = '0.25', recipientAddress = RECIPIENT) {
    const v = await e.loop.vault(ledgerId);
    await rpc('anvil_setBalance', [v.address, `0x${(2n * ETH).toString(16)}`]);
    const res = await withdraw(e.loop.svc, v.vaultId, { recipientAddress, amount, description: `${ledgerId} out` });
    expect(res.status).toBe(200);
    const op = await e.loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST');
    return { v, op, id: res.body.operationID as string };
  }

  it('marks a transaction priced under the base fee stuck, and a speed-up lands in its place', async () => {
    const { v, op, id } = await broadcastWithdrawal();
    const original = op.txids[0] as string;
    // The base fee jumps far above the withdrawal's max fee: it cannot be mined any more.
    await rpc('anvil_setNextBlockBaseFeePerGas', [`0x${(100n * 10n ** 9n).toString(16)}`]);
    await rpc('evm_mine');
    const stuck = await e.loop.waitFor(v.vaultId, id, (o) => o.stuck !== undefined);
    expect(stuck.status).toBe('BROADCAST');
    expect(stuck.stuck.reason).toMatch(/under the current base fee/);
    const metrics = (await e.loop.svc.call('GET', '/metrics')).body as string;
    expect(metrics).toMatch(/byow_after_broadcast_total\{ledger="ethdev",event="stuck"\} [1-9]/);

    const before = await e.p.getBalance(RECIPIENT);
    const res = await post(v.vaultId, id, 'speed-up');
    expect(res.status).toBe(200);
    expect(res.body.attempts.map((a: { kind: string; status: string }) => [a.kind, a.status])).toEqual([
      ['original', 'broadcast'],
      ['speed-up', 'signing'],
    ]);
    expect(BigInt(res.body.attempts[1].fee)).toBeGreaterThan(BigInt(res.body.attempts[0].fee));
    const sent = await e.loop.waitFor(v.vaultId, id, (o) => o.attempts[1]?.status === 'broadcast' && o.attempts[1].sentAt);
    const replacement = sent.attempts[1].txids[0] as string;
    expect(sent.stuck).toBeUndefined();
    await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
    expect(done.txids).toEqual([replacement]);
    expect(done.attempts.map((a: { status: string }) => a.status)).toEqual(['replaced', 'confirmed']);
    expect(await e.p.getTransactionReceipt(original)).toBeNull();
    const receipt = await e.p.getTransactionReceipt(replacement);
    expect(receipt?.status).toBe(1);
    expect((await e.p.getBalance(RECIPIENT)) - before).toBe(ETH / 4n);
    expect(await e.p.getTransactionCount(v.address, 'latest')).toBe(1);
    // A final withdrawal can be neither sped up nor cancelled.
    const again = await post(v.vaultId, id, 'speed-up');
    expect([again.status, again.body.errCode]).toEqual([409, 'ERR_NOT_REPLACEABLE']);
    const cancel = await post(v.vaultId, id, 'cancel');
    expect([cancel.status, cancel.body.errCode]).toEqual([409, 'ERR_NOT_CANCELABLE']);
  });

  it('a cancel that lands ends the withdrawal FAILED (cancelled) and nothing reaches the recipient', async () => {
    const { v, op, id } = await broadcastWithdrawal('ethdev', '0.5');
    expect((await post(v.vaultId, id, 'speed-up', { fee: '0.5' })).status).toBe(422);
    const before = await e.p.getBalance(RECIPIENT);
    const res = await post(v.vaultId, id, 'cancel');
    expect(res.status).toBe(200);
    const sent = await e.loop.waitFor(v.vaultId, id, (o) => o.attempts[1]?.status === 'broadcast' && o.attempts[1].sentAt);
    const cancel = sent.attempts[1].txids[0] as string;
    const tx = await e.p.getTransaction(cancel);
    expect(tx?.to).toBe(v.address);
    expect(tx?.value).toBe(0n);
    // The same nonce as the original (a fresh vault's first); the pool dropped the original for it.
    expect(tx?.nonce).toBe(0);
    expect(await e.p.getTransaction(op.txids[0])).toBeNull();
    await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'FAILED');
    expect(done.failureReason).toMatch(/^cancelled/);
    expect(done.txids).toEqual([cancel]);
    expect(done.attempts.map((a: { kind: string; status: string }) => `${a.kind}:${a.status}`)).toEqual(['original:replaced', 'cancel:confirmed']);
    expect(await e.p.getBalance(RECIPIENT)).toBe(before);
    // The nonce was used by the cancel: the next withdrawal takes the one after it.
    const next = await withdraw(e.loop.svc, v.vaultId, { recipientAddress: RECIPIENT, amount: '0.1', description: 'after cancel' });
    await e.loop.waitFor(v.vaultId, next.body.operationID, (o) => o.status === 'BROADCAST');
    await rpc('evm_mine');
    const after = await e.loop.waitFor(v.vaultId, next.body.operationID, (o) => o.status === 'CONFIRMED');
    expect((await e.p.getTransaction(after.txids[0]))?.nonce).toBe(1);
  });

  it('sends a transaction the node dropped again from its stored signed bytes', async () => {
    const { v, op, id } = await broadcastWithdrawal('ethdev', '0.1');
    const txid = op.txids[0] as string;
    await rpc('anvil_dropTransaction', [txid]);
    expect(await e.p.getTransaction(txid)).toBeNull();
    const resent = await e.loop.waitFor(v.vaultId, id, (o) => (o.attempts[0]?.rebroadcasts ?? 0) >= 1, 30_000);
    expect(resent.history.some((h: { detail?: string }) => h.detail?.startsWith('sent again (1)'))).toBe(true);
    expect(await e.p.getTransaction(txid)).not.toBeNull();
    await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
    expect(done.txids).toEqual([txid]);
  });

  it('a block that leaves the chain before the threshold sends the withdrawal back to waiting, then it confirms', async () => {
    const { v, op, id } = await broadcastWithdrawal('slowdev', '0.1');
    const txid = op.txids[0] as string;
    const snapshot = await rpc('evm_snapshot');
    await rpc('evm_mine');
    await e.loop.waitFor(v.vaultId, id, (o) => o.confirmations === 1);
    await rpc('evm_revert', [snapshot]);
    const back = await e.loop.waitFor(v.vaultId, id, (o) => o.history.some((h: { detail?: string }) => h.detail?.startsWith('reorganised')), 30_000);
    expect(back.status).toBe('BROADCAST');
    await e.loop.waitFor(v.vaultId, id, (o) => o.confirmations === 0);
    // Sent again: the node knows it once more (the revert took it out of chain and pool).
    await until('the resent transaction in the pool', async () => (await e.p.getTransaction(txid)) !== null, 30_000);
    for (let i = 0; i < 3; i++) await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED', 30_000);
    expect(done.txids).toEqual([txid]);
    expect(done.confirmations).toBeGreaterThanOrEqual(3);
    expect((await e.p.getTransactionReceipt(txid))?.status).toBe(1);
  });

  /** An open Gate, deployed and mined. */
  async function openGate(): Promise<{ gate: Contract; address: string; owner: Wallet }> {
    const owner = new Wallet(DEPLOYER_KEY, e.p);
    const { abi, bytecode } = compileSolidity('Gate', GATE);
    const deployed = await new ContractFactory(abi as never, bytecode, owner).deploy();
    await rpc('evm_mine');
    await deployed.waitForDeployment();
    return { gate: deployed as unknown as Contract, address: await deployed.getAddress(), owner };
  }

  /** The gate closes in the next block, ahead of the withdrawal's transaction (a higher tip), which then reverts. */
  async function closeGateAhead(gate: Contract, owner: Wallet, txid: string): Promise<void> {
    await gate.connect(owner).getFunction('setClosed')(true, { maxPriorityFeePerGas: 100n * 10n ** 9n, maxFeePerGas: 200n * 10n ** 9n });
    await rpc('evm_mine');
    expect((await e.p.getTransactionReceipt(txid))?.status).toBe(0);
  }

  it('a reverted transaction ends FAILED only once its block has the confirmations', async () => {
    const { gate, address, owner } = await openGate();
    const { v, op, id } = await broadcastWithdrawal('slowdev', '0.1', address);
    const txid = op.txids[0] as string;
    await closeGateAhead(gate, owner, txid);
    const seen = await e.loop.waitFor(v.vaultId, id, (o) => o.confirmations === 1 || o.status === 'FAILED');
    expect(seen.status).toBe('BROADCAST');
    expect(
      seen.history.some((h: { detail?: string }) => /^mined at \d+ and failed \(reverted\); FAILED once it has 3 confirmations$/.test(h.detail ?? '')),
    ).toBe(true);
    // Mined: no speed-up or cancel can take its nonce any more.
    expect((await post(v.vaultId, id, 'speed-up')).status).toBe(409);
    await rpc('evm_mine');
    await e.loop.waitFor(v.vaultId, id, (o) => o.confirmations === 2);
    await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status !== 'BROADCAST');
    expect([done.status, done.failureReason, done.confirmations, done.txids]).toEqual(['FAILED', 'transaction failed on the ledger: reverted', 3, [txid]]);
    expect(done.attempts.map((a: { status: string }) => a.status)).toEqual(['failed']);
  });

  it('a reverted transaction whose block leaves the chain goes back to waiting, and confirms when mined again successfully', async () => {
    const { gate, address, owner } = await openGate();
    const { v, op, id } = await broadcastWithdrawal('slowdev', '0.1', address);
    const txid = op.txids[0] as string;
    const snapshot = await rpc('evm_snapshot');
    await closeGateAhead(gate, owner, txid);
    await e.loop.waitFor(v.vaultId, id, (o) => o.confirmations === 1 || o.status === 'FAILED');
    // The block leaves the chain: the gate is open again, our transaction waits to be mined again.
    await rpc('evm_revert', [snapshot]);
    expect(await gate.getFunction('closed')()).toBe(false);
    const back = await e.loop.waitFor(
      v.vaultId,
      id,
      (o) => o.history.some((h: { detail?: string }) => h.detail?.startsWith('reorganised')) || o.status !== 'BROADCAST',
      30_000,
    );
    expect([back.status, back.confirmations]).toEqual(['BROADCAST', 0]);
    // Sent again: the node knows it once more, and this time it pays the recipient.
    await until('the resent transaction in the pool', async () => (await e.p.getTransaction(txid)) !== null, 30_000);
    for (let i = 0; i < 3; i++) await rpc('evm_mine');
    expect((await e.p.getTransactionReceipt(txid))?.status).toBe(1);
    expect(await e.p.getBalance(address)).toBe(ETH / 10n);
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status !== 'BROADCAST', 30_000);
    expect([done.status, done.txids]).toEqual(['CONFIRMED', [txid]]);
  });

  it('a speed-up whose callback was lost is fetched from the custody service and sent', async () => {
    const { v, op, id } = await broadcastWithdrawal('ethdev', '0.1');
    e.loop.custody.control.setFaults({ dropCallback: true }, v.vaultId);
    const res = await post(v.vaultId, id, 'speed-up');
    expect(res.status).toBe(200);
    const signId = res.body.attempts[1].operationID as string;
    await until('the replacement signed', () => e.loop.custody.control.operation(signId)?.status === 'COMPLETED');
    // The custody service never called back.
    expect((e.loop.custody.control.operation(signId)?.deliveries ?? []).every((d) => d.delivered === 0)).toBe(true);
    const sent = await e.loop.waitFor(v.vaultId, id, (o) => o.attempts[1]?.status === 'broadcast' && o.attempts[1].sentAt, 30_000);
    e.loop.custody.control.setFaults({}, v.vaultId);
    await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
    expect(done.txids).toEqual(sent.attempts[1].txids);
    expect(done.txids).not.toEqual(op.txids);
  });

  it('a speed-up the quorum declined ends failed at once, and the withdrawal can be sped up again', async () => {
    const { v, id } = await broadcastWithdrawal('ethdev', '0.1');
    // The custody service says so with a callback without signatures; reconciliation would too.
    e.loop.custody.control.setFaults({ end: 'DECLINED', notifyEnd: true }, v.vaultId);
    const first = await post(v.vaultId, id, 'speed-up');
    expect(first.status).toBe(200);
    const ended = await e.loop.waitFor(v.vaultId, id, (o) => o.attempts[1]?.status === 'failed');
    expect(ended.attempts[1].failureReason).toMatch(/DECLINED at the custody service/);
    expect(ended.status).toBe('BROADCAST');
    e.loop.custody.control.setFaults({}, v.vaultId);
    const again = await post(v.vaultId, id, 'speed-up');
    expect([again.status, again.body.errCode]).toEqual([200, undefined]);
    await e.loop.waitFor(v.vaultId, id, (o) => o.attempts[2]?.status === 'broadcast');
    await rpc('evm_mine');
    await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
  });

  it("a speed-up asked for again after its sign request failed is sent, though it repeats the failed one's transaction", async () => {
    const { v, id } = await broadcastWithdrawal('ethdev', '0.1');
    const custody = e.loop.svc.pipeline!.deps.custody;
    const real = custody.requestSign.bind(custody);
    custody.requestSign = async () => {
      custody.requestSign = real;
      throw new Error('custody service unavailable');
    };
    expect((await post(v.vaultId, id, 'speed-up', { fee: '500' })).status).toBeGreaterThanOrEqual(500);
    const second = await post(v.vaultId, id, 'speed-up', { fee: '500' });
    expect(second.status).toBe(200);
    expect(second.body.attempts.map((a: { status: string }) => a.status)).toEqual(['broadcast', 'failed', 'signing']);
    // Same nonce, same fee: the same transaction, so the same digest as the failed attempt.
    const stored = (await e.loop.svc.pipeline!.deps.store.resolve(id))!;
    expect(stored.attempts?.[2]?.unsigned?.payloads[0]?.digest).toBe(stored.attempts?.[1]?.unsigned?.payloads[0]?.digest);
    const sent = await e.loop.waitFor(v.vaultId, id, (o) => o.attempts[2]?.status === 'broadcast', 15_000);
    expect(sent.attempts[1].status).toBe('failed');
    await rpc('evm_mine');
    const done = await e.loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
    expect(done.txids).toEqual(sent.attempts[2].txids);
  });

  it('answers 404 for an unknown withdrawal and 403 without the withdraw scope', async () => {
    const v = await e.loop.vault('ethdev');
    expect((await post(v.vaultId, 'nope', 'speed-up')).status).toBe(404);
    const res = await e.loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals/nope/cancel`, { key: READ_KEY, body: {} });
    expect(res.status).toBe(403);
  });
});
