import { createServer, type Server } from 'node:http';
import { randomBytes } from 'node:crypto';
import { networks, payments } from 'bitcoinjs-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedOf } from '../../src/withdrawals/model/operation.js';
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { startLoop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';

/** Bitcoin Core's answer, relayed by Esplora, from a back end whose relay floor is above the transaction's fee rate. */
const CORE_MIN_RELAY = { code: -26, message: 'min relay fee not met, 144 < 282' };
/** Bitcoin Core's answer to a signature that fails the consensus script rules. */
const CORE_BAD_SIGNATURE = { code: -26, message: 'mandatory-script-verify-flag-failed (Signature must be zero for failed CHECK(MULTI)SIG operation)' };

/**
 * An Esplora in front of the regtest node that refuses the first transaction posted to it, and
 * those same bytes every time again, with `answer` in Esplora's wording; everything else passes.
 */
async function refusingEsplora(target: string, answer: { code: number; message: string }) {
  const seen = { hex: undefined as string | undefined, refusals: 0 };
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', async () => {
      if (req.method === 'POST' && req.url === '/tx') {
        seen.hex ??= body.trim();
        if (body.trim() === seen.hex) {
          seen.refusals++;
          res.writeHead(400, { 'content-type': 'text/plain' }).end(`sendrawtransaction RPC error: ${JSON.stringify(answer)}`);
          return;
        }
      }
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, ...(req.method === 'POST' ? { body } : {}) });
      res.writeHead(upstream.status, { 'content-type': upstream.headers.get('content-type') ?? 'text/plain' }).end(await upstream.text());
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  return { url, seen, close: () => new Promise<void>((r) => server.close(() => r())) };
}

const newRecipient = () => payments.p2wpkh({ hash: randomBytes(20), network: networks.regtest }).address as string;
const reservedOf = (op: { unsigned: { state: unknown } }) => (op.unsigned.state as { reserved: string[] }).reserved;

/**
 * A back end's refusal that proves nothing about the signed bytes (here Core's "min relay fee not
 * met" from a back end with a higher floor) never ends a withdrawal FAILED: the same bytes may
 * reach the chain through another node. It stays BROADCAST with the `refused` mark and its coins
 * claimed; the integrator's retry spends other coins; each CONFIRMED withdrawal pays once. Only
 * bytes that can never be valid (a consensus script failure) end it FAILED at once.
 */
describe('a refusal that proves nothing holds the withdrawal open (Bitcoin, bcoin regtest)', () => {
  let regtest: BitcoinRegtest;

  beforeAll(async () => {
    regtest = await startBitcoinRegtest();
  }, 60_000);
  afterAll(async () => {
    await regtest?.stop();
  });

  async function loopBehind(answer: { code: number; message: string }, env: Record<string, string> = {}) {
    const front = await refusingEsplora(regtest.url, answer);
    const loop = await startLoop({ btcregtest: { backend: 'esplora', url: front.url, confirmations: 1 } }, { env });
    const v = await loop.vault('btcregtest');
    await regtest.faucet(v.address, 50_000_000n);
    await regtest.faucet(v.address, 50_000_000n);
    const withdraw = (recipient: string, description: string) =>
      loop.svc.call('POST', `/api/v1.0/vaults/${v.vaultId}/withdrawals`, {
        key: WITHDRAW_KEY,
        body: { recipientAddress: recipient, amount: '0.1', description, fee: '2' },
      });
    const settled = (id: string) => loop.waitFor(v.vaultId, id, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
    return { front, loop, v, withdraw, settled, deps: loop.svc.pipeline!.deps, stop: async () => (await loop.stop(), await front.close()) };
  }
  const received = async (address: string): Promise<number> => {
    const utxos = (await (await fetch(`${regtest.url}/address/${address}/utxo`)).json()) as { value: number }[];
    return utxos.reduce((sum, u) => sum + u.value, 0);
  };

  it('refused with "min relay fee not met": held open, shown refused; the same bytes sent from outside land; the retry spends other coins; paid once per CONFIRMED', async () => {
    const { front, loop, v, withdraw, settled, deps, stop } = await loopBehind(CORE_MIN_RELAY);
    try {
      const recipient = newRecipient();
      const a = await withdraw(recipient, 'A, refused');
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      const held = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.refused !== undefined);
      expect(held.status).toBe('BROADCAST');
      expect(held.refused).toMatchObject({ answer: expect.stringContaining('min relay fee not met, 144 < 282'), errCode: 'ERR_FEE_TOO_LOW' });
      expect(held.attempts[0].refusals[0]).toMatchObject({ node: new URL(front.url).host });

      // The integrator retries with B: it must not spend A's coins while A is open.
      const b = await withdraw(recipient, 'B, the retry');
      expect(b.status, JSON.stringify(b.body)).toBe(200);
      await loop.waitFor(v.vaultId, b.body.operationID, (o) => o.status === 'BROADCAST');
      const [opA, opB] = [(await deps.store.resolve(a.body.operationID))!, (await deps.store.resolve(b.body.operationID))!];
      expect(reservedOf(opB).filter((c) => reservedOf(opA).includes(c))).toEqual([]);

      // A's signed bytes reach the chain through another node.
      const hex = signedOf(opA, 0)[0]!.serialized;
      expect(hex).toBe(front.seen.hex);
      const posted = await fetch(`${regtest.url}/tx`, { method: 'POST', body: hex });
      expect(posted.status, await posted.clone().text()).toBe(200);
      await regtest.mine(1);
      const [doneA, doneB] = [await settled(a.body.operationID), await settled(b.body.operationID)];
      expect([doneA.status, doneB.status]).toEqual(['CONFIRMED', 'CONFIRMED']);
      expect(doneA.history.map((h: { status: string }) => h.status)).not.toContain('FAILED');
      expect(doneA.refused).toBeUndefined();
      // Paid exactly once per CONFIRMED withdrawal.
      expect(await received(recipient)).toBe(2 * 10_000_000);
    } finally {
      await stop();
    }
  });

  it('refused and never sent from elsewhere: its invalidation goes through the custody service; once the cancel lands it is FAILED naming the refusal, and nobody was paid', async () => {
    const { front, loop, v, withdraw, settled, deps, stop } = await loopBehind(CORE_MIN_RELAY, { INVALIDATE_REFUSED_AFTER_SECONDS: '1' });
    try {
      const recipient = newRecipient();
      const a = await withdraw(recipient, 'A, refused, invalidated');
      expect(a.status, JSON.stringify(a.body)).toBe(200);
      const held = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.refused !== undefined);
      expect(held.refused.invalidateAfter).toBeDefined();
      const sent = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.attempts[1]?.kind === 'cancel' && o.attempts[1].sentAt, 30_000);
      expect(loop.custody.control.operation(sent.attempts[1].operationID)?.status).toBe('COMPLETED');
      await regtest.mine(1);
      const done = await settled(a.body.operationID);
      expect(done.status).toBe('FAILED');
      expect(done.failureReason).toMatch(
        /^cancelled: the cancel transaction [0-9a-f]{64} landed \(the original was refused by the node: .*min relay fee not met/,
      );
      // The refused bytes can no longer land: their coins are spent by the cancel.
      const op = (await deps.store.resolve(a.body.operationID))!;
      const again = await fetch(`${regtest.url}/tx`, { method: 'POST', body: signedOf(op, 0)[0]!.serialized });
      expect(again.status).toBe(400);
      expect(front.seen.refusals).toBeGreaterThanOrEqual(1);
      expect(await received(recipient)).toBe(0);
    } finally {
      await stop();
    }
  });

  it('bytes that can never be valid (a consensus script failure) still end the withdrawal FAILED at once', async () => {
    const { loop, v, withdraw, stop } = await loopBehind(CORE_BAD_SIGNATURE);
    try {
      const recipient = newRecipient();
      const a = await withdraw(recipient, 'A, bad signature');
      const done = await loop.waitFor(v.vaultId, a.body.operationID, (o) => o.status === 'FAILED' || o.status === 'CONFIRMED' || o.refused !== undefined);
      expect(done).toMatchObject({ status: 'FAILED', failureReason: expect.stringContaining('mandatory-script-verify-flag-failed') });
      expect(done.refused).toBeUndefined();
      expect(await received(recipient)).toBe(0);
    } finally {
      await stop();
    }
  });
});
