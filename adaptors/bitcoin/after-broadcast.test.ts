import { Transaction } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { VerifiedSignature } from '../../src/ledger/adaptor.js';
import { parsePublicKey } from '../../src/ledger/public-key.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { fromStored, signedOf } from '../../src/withdrawals/model/operation.js';
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../../test/helpers/service.js';
import { until } from '../../test/pipeline/support.js';

const RECIPIENT = 'bcrt1qw508d6qejxtdg4y5r3zarvary0c5xw7kygt080';
const STRANGER = 'bcrt1qqurswpc8qurswpc8qurswpc8qurswpc8dxm0gk';

/**
 * After the broadcast on a real bcoin regtest node (RBF on), through each back end (the
 * Esplora facade, the Core RPC facade), with blocks mined only when a test says so: stuck,
 * BIP125 speed-up and cancel, a dropped transaction, a conflicting spend by a stranger, and a
 * reorganisation through `invalidateblock`. What the chain holds is read through Esplora.
 */
describe.each(['esplora', 'core'] as const)('after the broadcast on Bitcoin (bcoin regtest) through %s', (backend) => {
  let regtest: BitcoinRegtest;
  let loop: Loop;
  const post = (vaultId: string, id: string, kind: string, body: object = {}) =>
    loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals/${id}/${kind}`, { key: WITHDRAW_KEY, body });
  const chainTx = async (txid: string) => Transaction.fromHex(await (await fetch(`${regtest.url}/tx/${txid}/hex`)).text());
  const known = async (txid: string) => (await fetch(`${regtest.url}/tx/${txid}/hex`)).status === 200;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
    const url = backend === 'core' ? regtest.coreRpcUrl : regtest.url;
    loop = await startLoop(
      {
        btcregtest: { backend, url, confirmations: 1 },
        btcslow: { family: 'bitcoin', network: 'regtest', backend, url, confirmations: 3 },
      },
      { env: { STUCK_AFTER_SECONDS: '1', RESEND_AFTER_SECONDS: '1' } },
    );
  }, 60_000);
  afterAll(async () => {
    await loop?.stop();
    await regtest?.stop();
  });

  async function broadcastWithdrawal(ledgerId = 'btcregtest', fee = '1') {
    const v = await loop.vault(ledgerId);
    await regtest.faucet(v.address, 50_000_000n);
    const res = await loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: RECIPIENT, amount: '0.1', description: 'btc out', fee },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const op = await loop.waitFor(v.vaultId, res.body.operationID, (o) => o.status === 'BROADCAST');
    return { v, op, id: res.body.operationID as string };
  }

  it('a low-fee transaction is marked stuck; a BIP125 speed-up from the same inputs is mined instead', async () => {
    const { v, op, id } = await broadcastWithdrawal();
    const stuck = await loop.waitFor(v.vaultId, id, (o) => o.stuck !== undefined);
    // The Esplora facade answers a default fee table; Core has no estimate on a fresh chain ("Insufficient data"): nothing to compare with.
    expect(stuck.stuck.reason).toMatch(
      backend === 'esplora' ? /not mined .* after it was sent: its fee rate of 1\.\d sat\/vB is under/ : /^not mined \d+ s after it was sent$/,
    );
    // A custom rate too low for BIP125 rule 4 is refused with the minimum.
    const low = await post(v.vaultId, id, 'speed-up', { fee: '1' });
    expect(low.status).toBe(422);
    expect(low.body.details).toMatch(/replacement minimum of \d+ sat\/vB/);
    const res = await post(v.vaultId, id, 'speed-up', { fee: '10' });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sent = await loop.waitFor(v.vaultId, id, (o) => o.attempts[1]?.status === 'broadcast' && o.attempts[1].sentAt);
    const replacement = sent.attempts[1].txids[0] as string;
    expect(await known(op.txids[0])).toBe(false);
    const [a, b] = [Transaction.fromHex(await signedTx(id, 1)), Transaction.fromHex(await signedTx(id, 0))];
    expect(a.ins.map((i) => `${Buffer.from(i.hash).toString('hex')}:${i.index}`)).toEqual(
      b.ins.map((i) => `${Buffer.from(i.hash).toString('hex')}:${i.index}`),
    );
    expect(BigInt(sent.attempts[1].fee)).toBeGreaterThan(BigInt(sent.attempts[0].fee));
    expect(a.outs[0]?.value).toBe(10_000_000n);
    await regtest.mine(1);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED');
    expect(done.txids).toEqual([replacement]);
    expect(done.attempts.map((x: { status: string }) => x.status)).toEqual(['replaced', 'confirmed']);
  });

  async function signedTx(id: string, attempt: number): Promise<string> {
    const op = (await loop.svc.pipeline!.deps.store.resolve(id))!;
    return signedOf(op, attempt)[0]!.serialized;
  }

  it('a cancel sends everything back to the vault and ends FAILED (cancelled)', async () => {
    const { v, id } = await broadcastWithdrawal();
    const res = await post(v.vaultId, id, 'cancel');
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const sent = await loop.waitFor(v.vaultId, id, (o) => o.attempts[1]?.status === 'broadcast' && o.attempts[1].sentAt);
    await regtest.mine(1);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'FAILED');
    expect(done.failureReason).toMatch(/^cancelled/);
    const tx = await chainTx(sent.attempts[1].txids[0]);
    expect(tx.outs).toHaveLength(1);
    expect(tx.outs[0]!.value).toBe(50_000_000n - BigInt(sent.attempts[1].fee));
    const balance = (await loop.svc.call('GET', `/api/v1.0/vaults/${v.vaultId}/balance`, { key: READ_KEY })).body.balances[0].amount;
    expect(balance).toBe((Number(tx.outs[0]!.value) / 1e8).toString());
  });

  it('a transaction the node forgot is sent again from the stored bytes', async () => {
    const { v, op, id } = await broadcastWithdrawal();
    const txid = op.txids[0] as string;
    // Evicted from the node's mempool (as after a restart or a full mempool).
    const mempool = (regtest.node.node as unknown as { mempool: { getTX(h: string): unknown; evictEntry(e: unknown): void; getEntry(h: string): unknown } })
      .mempool;
    mempool.evictEntry(mempool.getEntry(Buffer.from(txid, 'hex').reverse().toString('hex')));
    expect(await known(txid)).toBe(false);
    const resent = await loop.waitFor(v.vaultId, id, (o) => (o.attempts[0]?.rebroadcasts ?? 0) >= 1, 30_000);
    expect(resent.status).toBe('BROADCAST');
    expect(await known(txid)).toBe(true);
    await regtest.mine(1);
    expect((await loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED')).txids).toEqual([txid]);
  });

  it('inputs spent by a stranger fail the withdrawal with the spending txid and free the coins', async () => {
    const { v, id } = await broadcastWithdrawal();
    const deps = loop.svc.pipeline!.deps;
    const op = (await deps.store.resolve(id))!;
    const adaptor = deps.registry.get('btcregtest');
    // A transaction of the vault's key that this withdrawal never made: its coins to a stranger.
    const unsigned = await adaptor.replace!({
      kind: 'cancel',
      unsigned: fromStored(op.unsigned),
      signed: signedOf(op, 0),
      fee: '20',
      source: { vaultId: v.vaultId, addresses: [], changeAddress: STRANGER },
    });
    const { operationID } = await deps.custody.requestSign(v.vaultId, {
      description: 'not this service',
      dataToSign: unsigned.payloads.map((p) => p.digest),
      publicKeys: unsigned.payloads.map((p) => p.keyId),
      rawTransactions: unsigned.payloads.map((p) => p.preimage ?? ''),
      ledgerHashAlgorithm: 'DOUBLE_SHA256',
      ledger: 'BTCREGTEST',
      providerData: '{}',
    });
    const signedOp = await until('the stranger transaction signed', () => {
      const o = loop.custody.control.operation(operationID);
      return o?.status === 'COMPLETED' ? o : undefined;
    });
    const sigs: VerifiedSignature[] = unsigned.payloads.map((p, i) => ({
      payloadIndex: i,
      ...verifySignature(p.digest, signedOp.signatures[i] as string, signedOp.v[i], parsePublicKey(p.publicKey, 'secp256k1')),
    }));
    const [stranger] = adaptor.combine(unsigned, sigs);
    await adaptor.broadcast(stranger!);
    await regtest.mine(1);
    const failed = await loop.waitFor(v.vaultId, id, (o) => o.status === 'FAILED', 30_000);
    expect(failed.failureReason).toContain(`spent by transaction ${stranger!.txid}`);
    expect(failed.attempts[0].status).toBe('failed');
    const claims = await loop.svc.core.reservations.claimedBy('btcregtest', (op.unsigned.state as { reserved: string[] }).reserved);
    expect(claims).toHaveLength(1);
    expect(claims.every((c) => c === null)).toBe(true);
  });

  it('a block invalidated before the threshold sends the withdrawal back to BROADCAST; it confirms on the new chain', async () => {
    const { v, op, id } = await broadcastWithdrawal('btcslow', '3');
    const txid = op.txids[0] as string;
    const [block] = await regtest.mine(1);
    await loop.waitFor(v.vaultId, id, (o) => o.confirmations === 1);
    await regtest.invalidate(block as string);
    const back = await loop.waitFor(v.vaultId, id, (o) => o.history.some((h: { detail?: string }) => h.detail?.startsWith('reorganised')), 30_000);
    expect(back.status).toBe('BROADCAST');
    expect(back.confirmations).toBe(0);
    await until('the transaction back in the pool', () => known(txid), 30_000);
    await regtest.mine(3);
    const done = await loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED', 30_000);
    expect(done.txids).toEqual([txid]);
    expect(done.confirmations).toBeGreaterThanOrEqual(3);
  });
});
