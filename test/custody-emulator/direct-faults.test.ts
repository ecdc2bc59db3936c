import { randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { CustodyClient } from '../../src/custody/custody-client.js';
import { startInMemoryCustodyEmulator, type DirectFaults as Faults } from '../../src/dev/custody-emulator/index.js';
import { VerificationError } from '../../src/platform/errors.js';
import { parsePublicKey } from '../../src/ledger/public-key.js';
import { verifySignature, SECP256K1_N as N } from '../../src/ledger/signatures.js';
import { quietLogger, startReceiver } from '../custody/helpers.js';

const SECRET = 'faults-test-secret';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

/** Starts an in-memory emulator and a receiver, sets `faults` on a fresh ECDSA vault and signs `count` random digests. */
async function signWith(faults: Faults, count = 3, scheme: 'ECDSA' | 'EDDSA' = 'ECDSA') {
  const receiver = await startReceiver(SECRET);
  const custody = await startInMemoryCustodyEmulator({
    callback: { secret: SECRET, baseUrl: receiver.url, attempts: 2, baseDelayMs: 5 },
    quorum: { approvers: 1, required: 1, approvalDelayMs: 1 },
  });
  cleanup.push(receiver.close, custody.stop);
  const vault = custody.control.createVault(scheme);
  custody.control.setFaults(faults, vault.vaultId);
  const client = new CustodyClient({ baseUrl: custody.url, fetch, logger: quietLogger() });
  const digests = Array.from({ length: count }, () => randomBytes(32).toString('hex'));
  const { operationID } = await client.requestSign(vault.vaultId, {
    description: 'faults',
    dataToSign: digests,
    publicKeys: digests.map(() => vault.publicKey),
    rawTransactions: [],
    ledgerHashAlgorithm: 'SHA3_256',
    ledger: 'ETH',
    providerData: '{}',
  });
  const key = parsePublicKey(vault.publicKey, scheme === 'ECDSA' ? 'secp256k1' : 'ed25519');
  return { receiver, custody, vault, client, digests, operationID, key };
}

describe('in-memory custody emulator: faults set directly', () => {
  it('legacyV sends 27/28 with the historic meaning (27 = 1, 28 = 0), which still verifies', async () => {
    const { receiver, digests, key } = await signWith({ legacyV: true }, 8);
    const [cb] = await receiver.waitFor(1);
    digests.forEach((d, i) => {
      const v = cb!.body.v[i]!;
      expect([27, 28]).toContain(v);
      expect(verifySignature(d, cb!.body.signatures[i]!, v, key).recoveryId).toBe(v === 27 ? 1 : 0);
    });
  });

  it('highS sends s > n/2 with v flipped; it verifies after normalisation', async () => {
    const { receiver, digests, key } = await signWith({ highS: true });
    const [cb] = await receiver.waitFor(1);
    digests.forEach((d, i) => {
      const sig = cb!.body.signatures[i]!;
      const s = BigInt(`0x${sig.slice(64)}`);
      expect(s > N / 2n).toBe(true);
      const norm = verifySignature(d, sig, cb!.body.v[i], key);
      expect(BigInt(`0x${Buffer.from(norm.signature.subarray(32)).toString('hex')}`)).toBe(N - s);
      expect(norm.recoveryId).toBe(cb!.body.v[i]! ^ 1);
    });
  });

  it('corruptSignature damages exactly signature i, which then fails verification', async () => {
    const { receiver, digests, key, client, operationID } = await signWith({ corruptSignature: 1 });
    const [cb] = await receiver.waitFor(1);
    verifySignature(digests[0]!, cb!.body.signatures[0]!, cb!.body.v[0], key);
    verifySignature(digests[2]!, cb!.body.signatures[2]!, cb!.body.v[2], key);
    expect(() => verifySignature(digests[1]!, cb!.body.signatures[1]!, cb!.body.v[1], key)).toThrow(VerificationError);
    // A faulty release reports the same bytes when asked, so reconciliation sees them too.
    expect((await client.getSignOperation(operationID)).signatures).toEqual(cb!.body.signatures);
  });

  it('partial sends two POSTs whose originalEntryIds cover every index once', async () => {
    const { receiver, custody, digests, key } = await signWith({ partial: true }, 5);
    await custody.control.settled();
    expect(receiver.received).toHaveLength(2);
    const ids = receiver.received.flatMap((cb) => cb.body.originalEntryIds ?? []);
    expect(ids.sort()).toEqual([0, 1, 2, 3, 4]);
    for (const cb of receiver.received) {
      expect(cb.auth).toBeUndefined();
      cb.body.originalEntryIds!.forEach((original, j) => {
        expect(cb.body.dataToSign[j]).toBe(digests[original]);
        verifySignature(digests[original]!, cb.body.signatures[j]!, cb.body.v[j], key);
      });
    }
  });

  it('duplicate delivers the same callback N times', async () => {
    const { receiver, custody } = await signWith({ duplicate: 3 });
    await custody.control.settled();
    expect(receiver.received).toHaveLength(3);
    expect(new Set(receiver.received.map((cb) => JSON.stringify(cb.body))).size).toBe(1);
  });

  it('dropCallback never delivers, yet the operation is COMPLETED; a resend after clearing delivers', async () => {
    const { receiver, custody, vault, client, operationID } = await signWith({ dropCallback: true });
    // Settled: every delivery attempt, dropped ones included, has finished.
    await custody.control.settled();
    expect(receiver.hits()).toBe(0);
    expect(await client.getSignOperation(operationID)).toMatchObject({ status: 'COMPLETED', isApproved: true });
    custody.control.setFaults({}, vault.vaultId);
    await client.resend(operationID);
    await receiver.waitFor(1);
  });

  it('delayMs holds the callback back', async () => {
    const { receiver, custody, operationID } = await signWith({ delayMs: 120 }, 1);
    const completedAt = await (async () => {
      while (custody.control.operation(operationID)?.status !== 'COMPLETED') await new Promise((r) => setTimeout(r, 2));
      return Date.now();
    })();
    const [cb] = await receiver.waitFor(1);
    expect(cb!.at - completedAt).toBeGreaterThanOrEqual(100);
  });

  it('swapKey echoes a foreign key while the signatures stay the vault key’s', async () => {
    const { receiver, vault, digests, key } = await signWith({ swapKey: true }, 2);
    const [cb] = await receiver.waitFor(1);
    for (const echoed of cb!.body.publicKeys) {
      expect(echoed).not.toBe(vault.publicKey);
      expect(() => parsePublicKey(echoed, 'secp256k1')).not.toThrow();
    }
    digests.forEach((d, i) => verifySignature(d, cb!.body.signatures[i]!, cb!.body.v[i], key));
  });

  it('content faults that only mean something for ECDSA leave ed25519 signatures valid', async () => {
    const { receiver, digests, key } = await signWith({ legacyV: true, highS: true }, 2, 'EDDSA');
    const [cb] = await receiver.waitFor(1);
    expect(cb!.body.v).toEqual([0, 0]);
    digests.forEach((d, i) => verifySignature(d, cb!.body.signatures[i]!, 0, key));
  });

  it('per-vault faults override global ones and do not leak to other vaults', async () => {
    const { receiver, custody, client } = await signWith({});
    await receiver.waitFor(1);
    custody.control.setFaults({ duplicate: 2 });
    const quiet = custody.control.createVault();
    const loud = custody.control.createVault();
    custody.control.setFaults({ dropCallback: true }, quiet.vaultId);
    for (const vault of [quiet, loud]) {
      await client.requestSign(vault.vaultId, {
        description: '',
        dataToSign: [randomBytes(32).toString('hex')],
        publicKeys: [vault.publicKey],
        rawTransactions: [],
        ledgerHashAlgorithm: 'SHA256',
        ledger: 'eth',
        providerData: '',
      });
    }
    await custody.control.settled();
    const deliveries = (vaultId: string) => custody.control.operations().find((o) => o.vaultID === vaultId)?.deliveries;
    expect(deliveries(quiet.vaultId)).toEqual([{ delivered: 0, failed: 0, dropped: true }]);
    expect(deliveries(loud.vaultId)).toEqual([{ delivered: 2, failed: 0, dropped: false }]);
    expect(receiver.received).toHaveLength(3);
  });
});
