import type { Job } from 'bullmq';
import { JsonRpcProvider } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVM_NODES, startTestChain, type TestChain } from '../../test/helpers/chain.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';
import { until } from '../../test/pipeline/support.js';
import { broadcastJobId, confirmJobId } from '../../src/withdrawals/jobs/queues.js';
import { signedOf } from '../../src/withdrawals/model/operation.js';

const RECIPIENT = '0x00000000000000000000000000000000000000B0';

describe.each(EVM_NODES)('signing loop on Ethereum (%s): withdraw → quorum → callback → broadcast → CONFIRMED', (kind) => {
  let chain: TestChain;
  let loop: Loop;
  let provider: JsonRpcProvider;

  beforeAll(async () => {
    chain = await startTestChain(kind);
    loop = await startLoop({
      ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 },
      // The same chain under a second ledger id that waits for 2 confirmations.
      slowdev: { family: 'ethereum', chainId: 31337, rpcUrl: chain.anvil.url, confirmations: 2 },
    });
    provider = new JsonRpcProvider(chain.anvil.url, undefined, { cacheTimeout: -1, staticNetwork: true });
  });
  afterAll(async () => {
    provider?.destroy();
    await loop?.stop();
    await chain?.stop();
  });

  const withdraw = (vaultId: string, body: object) => loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  /** A withdrawal's job in `queue` (by its id), once `ready` holds for it. */
  const jobOnce = async (queue: 'broadcast' | 'confirm', operationID: string, ready: (job: Job) => boolean): Promise<Job> => {
    const { store, queues } = loop.svc.pipeline!.deps;
    const id = (await store.resolve(operationID))!.id;
    return until(`the ${queue} job of ${operationID}`, async () => {
      const job = await queues[queue].getJob(queue === 'broadcast' ? broadcastJobId(id) : confirmJobId(id));
      return job && ready(job) ? job : undefined;
    });
  };

  it('withdraws ETH to CONFIRMED and the balances move by the exact amounts', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 3n * 10n ** 18n);
    const before = await provider.getBalance(RECIPIENT);
    const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: 0.5, description: 'eth out' });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ status: 'EXECUTING', isComplete: false, description: 'eth out' });
    expect(res.body.appData.request).toMatchObject({ recipientAddress: RECIPIENT, asset: 'ETH', amount: '0.5', fee: 'MEDIUM' });
    expect(res.body.appData.txs[0].serialized).toMatch(/^02[0-9a-f]+$/);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(done.isComplete).toBe(true);
    expect(done.confirmations).toBeGreaterThanOrEqual(1);
    expect(done.history.map((h: { status: string }) => h.status)).toEqual(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']);
    expect((await provider.getBalance(RECIPIENT)) - before).toBe(5n * 10n ** 17n);
    const receipt = await provider.getTransactionReceipt(done.txids[0]);
    expect(receipt?.from).toBe(v.address);
    expect(await provider.getBalance(v.address)).toBe(3n * 10n ** 18n - 5n * 10n ** 17n - receipt!.gasUsed * receipt!.gasPrice);
    const list = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY });
    expect(list.body.items.map((o: { operationID: string }) => o.operationID)).toEqual([res.body.operationID]);
  });

  it('stays BROADCAST until the ledger has its confirmations', async () => {
    const v = await loop.vault('slowdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.1', description: 'two confirmations' });
    const sent = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST' && o.confirmations === 1);
    // The confirm job looks at one confirmation again (a whole run after this one), or ends.
    const seen = (await jobOnce('confirm', res.body.operationID, () => true)).attemptsStarted;
    await jobOnce('confirm', res.body.operationID, (job) => job.attemptsStarted > seen + 1 || job.finishedOn !== undefined);
    expect((await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${sent.operationID}`, { key: READ_KEY })).body.status).toBe('BROADCAST');
    await provider.send('evm_mine', []);
    const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(done.confirmations).toBe(2);
  });

  it('withdraws the ERC-20 to CONFIRMED', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    await chain.funder.sendToken(chain.token.contract, v.address, 100_000_000n);
    const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, asset: 'DEMO', amount: '12.345678', description: 'token out', fee: 'HIGH' });
    expect(res.status).toBe(200);
    await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    const bal = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/balance?assets=DEMO`, { key: READ_KEY });
    expect(bal.body.balances).toEqual([{ asset: 'DEMO', amount: '87.654322' }]);
  });

  it('25 concurrent withdrawals from one vault get 25 consecutive nonces, go out in nonce order and all confirm', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const start = await provider.getTransactionCount(v.address, 'latest');
    const results = await Promise.all(
      Array.from({ length: 25 }, (_, i) => withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: `0.00${i + 10}`, description: `burst ${i}` })),
    );
    expect(results.map((r) => r.status)).toEqual(results.map(() => 200));
    // Callbacks arrive in any order; each transaction waits for its predecessor, so even a node
    // that refuses nonce gaps (Hardhat automining) takes every one, and no block is forced here.
    const done = await Promise.all(
      results.map((r) =>
        loop.waitFor(v.vaultId, r.body.operationID, (o) => o.status !== 'EXECUTING' && o.status !== 'SIGNED' && o.status !== 'BROADCAST', 120_000),
      ),
    );
    expect(done.map((o) => o.status)).toEqual(done.map(() => 'CONFIRMED'));
    const mined = await Promise.all(done.map(async (o) => (await provider.getTransaction(o.txids[0]))!));
    expect(mined.map((t) => t.nonce).sort((a, b) => a - b)).toEqual(Array.from({ length: 25 }, (_, i) => start + i));
    // In nonce order on the chain: each later nonce sits in the same or a later block.
    const byNonce = [...mined].sort((a, b) => a.nonce - b.nonce);
    for (let i = 1; i < byNonce.length; i++) expect(byNonce[i]!.blockNumber!).toBeGreaterThanOrEqual(byNonce[i - 1]!.blockNumber!);
    expect(await provider.getTransactionCount(v.address, 'latest')).toBe(start + 25);
  });

  it('a payment the node refuses for want of funds is held open, not FAILED (funds may come, the bytes may land): shown refused with its words; funded again, the same bytes land and it ends CONFIRMED', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    loop.custody.control.setFaults({ delayMs: 800 }, v.vaultId);
    // Creation counts the withdrawals not yet mined: of two 0.6 ETH payments from 1 ETH, only one is made.
    const [a, b] = await Promise.all(['first', 'second'].map((d) => withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.6', description: d })));
    expect([a!.status, b!.status].sort()).toEqual([200, 422]);
    expect([a!, b!].find((r) => r.status === 422)!.body.errCode).toBe('ERR_INSUFFICIENT_FUNDS');
    // The key, used outside the service while the quorum approves, leaves too little for the one made.
    await provider.send('hardhat_setBalance', [v.address, '0x16345785d8a0000']);
    const made = [a!, b!].find((r) => r.status === 200)!;
    const held = await loop.waitFor(
      v.vaultId,
      made.body.operationID,
      (o) => o.refused !== undefined || o.status === 'FAILED' || o.status === 'CONFIRMED',
      60_000,
    );
    expect(held.status).toBe('BROADCAST');
    expect(held.failureReason).toBeUndefined();
    expect(held.refused.errCode).toBe('ERR_INSUFFICIENT_FUNDS');
    expect(held.refused.answer).toMatch(kind === 'hardhat' ? /Sender doesn't have enough funds to send tx/ : /insufficient funds/i);
    expect(held.attempts[0].refusals).toHaveLength(1);
    // Funds come back; the same signed bytes, sent by anyone who holds them, land.
    await provider.send('hardhat_setBalance', [v.address, '0xde0b6b3a7640000']);
    const op = (await loop.svc.pipeline!.deps.store.resolve(made.body.operationID))!;
    const raw = signedOf(op, 0)[0]!.serialized;
    await provider.send('eth_sendRawTransaction', [raw.startsWith('0x') ? raw : `0x${raw}`]);
    const done = await loop.waitFor(v.vaultId, made.body.operationID, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 60_000);
    expect(done.status).toBe('CONFIRMED');
    expect(done.refused).toBeUndefined();
  });

  if (kind === 'hardhat') {
    it('a fee under the next base fee is retried, not failed, and goes out once the base fee falls', async () => {
      const v = await loop.vault('ethdev');
      await chain.funder.sendEth(v.address, 10n ** 18n);
      loop.custody.control.setFaults({ delayMs: 600 }, v.vaultId);
      const res = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'base fee rises' });
      expect(res.status).toBe(200);
      // 10,000 gwei: far above the 2 × base fee + tip the MEDIUM level signed.
      await provider.send('hardhat_setNextBlockBaseFeePerGas', ['0x9184e72a000']);
      const waiting = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'SIGNED');
      // Refused by the node twice, and retried each time (or ended).
      await jobOnce('broadcast', res.body.operationID, (job) => job.attemptsMade >= 2 || job.finishedOn !== undefined);
      const still = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals/${waiting.operationID}`, { key: READ_KEY });
      expect(still.body.status).toBe('SIGNED');
      await provider.send('hardhat_setNextBlockBaseFeePerGas', ['0x1']);
      const done = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED', 60_000);
      expect((await provider.getTransaction(done.txids[0]))!.from).toBe(v.address);
    });
  }

  it('rejects bad withdrawal requests with 422 and reserves nothing', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 17n);
    const cases: [object, string][] = [
      [{ recipientAddress: RECIPIENT, amount: '1.0000000000000000001', description: 'x' }, 'decimal places'],
      [{ recipientAddress: RECIPIENT, amount: 0, description: 'x' }, 'greater than zero'],
      [{ recipientAddress: RECIPIENT, amount: '-1', description: 'x' }, 'positive'],
      [{ recipientAddress: RECIPIENT, amount: 'ten', description: 'x' }, 'not a decimal'],
      [{ recipientAddress: RECIPIENT, amount: '1', description: 'x', asset: 'DOGE' }, 'ETH, DEMO'],
      [{ recipientAddress: RECIPIENT, amount: '1', description: 'x', fee: 'FAST' }, 'HIGH'],
      [{ recipientAddress: '0x1234', amount: '1', description: 'x' }, 'not a valid'],
      [{ amount: '1', description: 'x' }, 'recipientAddress or recipientVault'],
      [{ recipientAddress: RECIPIENT, amount: '5', description: 'x' }, 'Insufficient'],
      // An account ledger does not consolidate: paying itself would only burn gas.
      [{ recipientAddress: v.address, amount: '0.01', description: 'x' }, 'the vault itself'],
      // The same account in any letter case: compared in EIP-55 form.
      [{ recipientAddress: v.address.toLowerCase(), amount: '0.01', description: 'x' }, `the vault itself (${v.address.toLowerCase()} pays ${v.address})`],
      [{ recipientAddress: `0x${v.address.slice(2).toUpperCase()}`, amount: '0.01', description: 'x' }, 'the vault itself'],
      [{ recipientVault: v.vaultId, amount: '0.01', description: 'x' }, 'the vault itself'],
    ];
    for (const [body, text] of cases) {
      const res = await withdraw(v.vaultId, body);
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(JSON.stringify(res.body)).toContain(text);
    }
    const ok = await withdraw(v.vaultId, { recipientAddress: RECIPIENT, amount: '0.01', description: 'after refusals' });
    const done = await loop.waitFor(v.vaultId, ok.body.operationID, (o) => o.status === 'CONFIRMED');
    expect((await provider.getTransaction(done.txids[0]))!.nonce).toBe(0);
  });

  it('sends to another registered vault by recipientVault', async () => {
    const a = await loop.vault('ethdev');
    const b = await loop.vault('ethdev');
    await chain.funder.sendEth(a.address, 10n ** 18n);
    const res = await withdraw(a.vaultId, { recipientVault: b.vaultId, amount: '0.25', description: 'internal' });
    expect(res.body.recipientVault).toBe(b.vaultId);
    await loop.waitFor(a.vaultId, res.body.operationID, (o) => o.status === 'CONFIRMED');
    // With recipientAddress beside it: the vault's address in any letter case is the same account; another address is not.
    const again = await withdraw(a.vaultId, { recipientVault: b.vaultId, recipientAddress: b.address.toLowerCase(), amount: '0.25', description: 'internal' });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    await loop.waitFor(a.vaultId, again.body.operationID, (o) => o.status === 'CONFIRMED');
    expect(await provider.getBalance(b.address)).toBe(50n * 10n ** 16n);
    const other = await withdraw(a.vaultId, { recipientVault: b.vaultId, recipientAddress: RECIPIENT, amount: '0.25', description: 'internal' });
    expect(other.status).toBe(422);
    expect(other.body).toMatchObject({
      errCode: 'ERR_INVALID_ARGUMENTS',
      field: 'recipientAddress',
      details: expect.stringContaining(`is not the address of recipientVault`),
    });
  });

  it('an Idempotency-Key makes a retried POST return the same withdrawal, not a second one', async () => {
    const v = await loop.vault('ethdev');
    await chain.funder.sendEth(v.address, 10n ** 18n);
    const body = { recipientAddress: RECIPIENT, amount: '0.2', description: 'retried' };
    const post = (b: object, key: string) =>
      loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: WITHDRAW_KEY, body: b, headers: { 'idempotency-key': key } });
    const [first, second] = await Promise.all([post(body, 'order-17'), post(body, 'order-17')]);
    const statuses = [first.status, second.status].sort();
    // Concurrent twins: one creates, the other is told to retry (409) — never two withdrawals.
    expect(statuses[0]).toBe(200);
    const created = first.status === 200 ? first : second;
    const retry = await post(body, 'order-17');
    expect(retry.status).toBe(200);
    expect(retry.body.operationID).toBe(created.body.operationID);
    const other = await post({ ...body, amount: '0.3' }, 'order-17');
    expect(other.status).toBe(409);
    expect(other.body.errCode).toBe('ERR_IDEMPOTENCY_MISMATCH');
    await loop.waitFor(v.vaultId, created.body.operationID, (o) => o.status === 'CONFIRMED');
    const list = await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY });
    expect(list.body.totalItems).toBe(1);
    const bad = await post(body, 'has spaces in it');
    expect(bad.status).toBe(422);
  });

  it('answers 401/403/404 for withdrawals without the right key or vault', async () => {
    const v = await loop.vault('ethdev');
    const body = { recipientAddress: RECIPIENT, amount: '1', description: 'x' };
    expect((await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { body })).status).toBe(401);
    expect((await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, { key: READ_KEY, body })).status).toBe(403);
    expect((await withdraw('no-such-vault', body)).status).toBe(404);
    expect((await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/withdrawals/nope`, { key: READ_KEY })).status).toBe(404);
  });
});
