import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startInMemoryCustodyEmulator, type EmulatorFaults } from '../../src/dev/custody-emulator/index.js';
import { parsePublicKey, publicKeyHex } from '../../src/ledger/public-key.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { eventually, startReceiver } from '../custody/helpers.js';

const SECRET = 'emulator-test-secret';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(extra: { apiKey?: string; receiverStatuses?: number[]; approvalDelayMs?: number } = {}) {
  const receiver = await startReceiver(SECRET, extra.receiverStatuses);
  const custody = await startInMemoryCustodyEmulator({
    callback: { secret: SECRET, baseUrl: receiver.url, attempts: 3, baseDelayMs: 5 },
    apiKey: extra.apiKey,
    quorum: { approvers: 2, required: 1, approvalDelayMs: extra.approvalDelayMs ?? 2 },
  });
  cleanup.push(receiver.close, custody.stop);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${custody.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined };
  };
  return { receiver, custody, call };
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest();

function btcRequest(publicKey: string) {
  const raw = randomBytes(60);
  return {
    description: 'btc',
    dataToSign: [sha256(sha256(raw)).toString('hex')],
    publicKeys: [publicKey],
    rawTransactions: [raw.toString('hex')],
    ledgerHashAlgorithm: 'DOUBLE_SHA256',
    ledger: 'BTCTEST',
    providerData: '{}',
  };
}

describe('in-memory custody emulator: the HTTP surface with directly made vaults', () => {
  it('creates vaults over HTTP with keys in the custody formats', async () => {
    const { call } = await setup();
    // Bots activate and join by themselves: a vault is ready once both joined.
    const account = await call('POST', '/accounts', { name: 'http' });
    expect(account.status).toBe(201);
    const bots = await Promise.all(
      ['a', 'b'].map((n) => call('POST', `/accounts/${account.json.id}/participants`, { name: `bot-${n}`, email: `${n}@example.com`, role: 'bot' })),
    );
    const vault = (cryptoKind: string) =>
      call('POST', `/accounts/${account.json.id}/vaults`, {
        name: `vault-${cryptoKind}`,
        cryptoKind,
        groups: [{ name: 'g', requiredApprovals: 1, members: bots.map((b) => ({ id: b.json.id })) }],
      });
    const publicKeyOf = async (id: string): Promise<string> => {
      for (let i = 0; i < 200; i++) {
        const res = await call('GET', `/vaults/${id}/publickey`);
        if (res.status === 200) return res.json.publicKey as string;
        await new Promise((r) => setTimeout(r, 10));
      }
      throw new Error(`vault ${id} never became ready`);
    };
    const ecdsa = await vault('ECDSA');
    expect(ecdsa.status).toBe(201);
    expect(await publicKeyOf(ecdsa.json.id)).toMatch(/^3056301006072A8648CE3D020106052B8104000A03420004[0-9A-F]{128}$/);
    const eddsa = await vault('EDDSA');
    const eddsaKey = await publicKeyOf(eddsa.json.id);
    expect(eddsaKey).toMatch(/^[0-9A-F]{64}$/);
    expect((await call('GET', `/vaults/${eddsa.json.id}/publickey`)).json).toEqual({ publicKey: eddsaKey });
    expect((await vault('RSA')).status).toBe(400);
  });

  it('accepts a Bitcoin preimage (DOUBLE_SHA256) and a key given raw and compressed', async () => {
    const { custody, call, receiver } = await setup();
    const vault = custody.control.createVault('ECDSA');
    const compressed = publicKeyHex(parsePublicKey(vault.publicKey, 'secp256k1'));
    const res = await call('POST', `/vaults/${vault.vaultId}/sign`, btcRequest(compressed));
    expect(res.status).toBe(200);
    const [cb] = await receiver.waitFor(1);
    expect(cb?.ledgerId).toBe('btctest');
    expect(cb?.body.publicKeys).toEqual([compressed]);
  });

  it('rejects a rawTransaction whose hash is not dataToSign, a foreign key, an unknown vault and bad bodies', async () => {
    const { custody, call } = await setup();
    const vault = custody.control.createVault('ECDSA');
    const other = custody.control.createVault('ECDSA');
    const good = btcRequest(vault.publicKey);

    const mismatch = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...good, dataToSign: [randomBytes(32).toString('hex')] });
    expect(mismatch.status).toBe(400);
    expect(mismatch.type).toContain('application/problem+json');
    expect(mismatch.json).toMatchObject({ type: '/mng/errors/digest-mismatch', title: 'Bad request', status: 400 });
    expect(mismatch.json.details).toContain('rawTransactions[0]');

    const foreign = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...good, publicKeys: [other.publicKey] });
    expect(foreign.json).toMatchObject({ type: '/mng/errors/wrong-public-key', status: 400 });

    const unknown = await call('POST', '/vaults/nope/sign', good);
    expect(unknown.status).toBe(404);
    expect(unknown.json).toMatchObject({ title: 'Not found', status: 404 });

    const bad = [
      { ...good, dataToSign: ['abcd'] },
      { ...good, publicKeys: [] },
      { ...good, publicKeys: ['zz'] },
      { ...good, ledgerHashAlgorithm: 'MD5' },
      { ...good, callbackUrl: 'file:///etc/passwd' },
      [],
      '{"broken json',
    ];
    for (const body of bad) {
      const res = await call('POST', `/vaults/${vault.vaultId}/sign`, body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.json.status).toBe(400);
    }
    expect(custody.control.operations()).toHaveLength(0);
    expect((await call('GET', '/operations/sign/unknown')).status).toBe(404);
    const route = await call('GET', '/no/such/route');
    expect(route).toMatchObject({ status: 404, json: { status: 404, title: 'Not found' } });
  });

  it('runs many sign requests at once without a listener warning', async () => {
    // Approvals slow enough that all 30 wait at once.
    const { custody, call, receiver } = await setup({ approvalDelayMs: 300 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    cleanup.push(async () => void process.off('warning', onWarning));
    const vault = custody.control.createVault('ECDSA');
    const answers = await Promise.all(Array.from({ length: 30 }, () => call('POST', `/vaults/${vault.vaultId}/sign`, btcRequest(vault.publicKey))));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    await receiver.waitFor(30);
    await custody.control.settled();
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('signs for an ed25519 vault', async () => {
    const { custody, call, receiver } = await setup();
    const vault = custody.control.createVault('EDDSA');
    const preimage = randomBytes(80);
    const digest = sha256(preimage).toString('hex');
    const res = await call('POST', `/vaults/${vault.vaultId}/sign`, {
      dataToSign: [digest],
      publicKeys: [vault.publicKey.toLowerCase()],
      rawTransactions: [preimage.toString('hex')],
      ledgerHashAlgorithm: 'SHA256',
      ledger: 'STELLARTEST',
      providerData: 'x',
    });
    expect(res.status).toBe(200);
    const [cb] = await receiver.waitFor(1);
    expect(cb?.body.v).toEqual([0]);
    verifySignature(digest, cb!.body.signatures[0]!, 0, parsePublicKey(vault.publicKey, 'ed25519'));
  });

  it('signs plain data (PLAIN) whole for an ed25519 vault, and only there', async () => {
    const { custody, call, receiver } = await setup();
    const vault = custody.control.createVault('EDDSA');
    const message = randomBytes(300).toString('hex');
    const body = {
      dataToSign: [message],
      publicKeys: [vault.publicKey],
      rawTransactions: [message],
      ledgerHashAlgorithm: 'PLAIN',
      ledger: 'SOL',
      providerData: 'x',
    };
    expect((await call('POST', `/vaults/${vault.vaultId}/sign`, body)).status).toBe(200);
    const [cb] = await receiver.waitFor(1);
    verifySignature(message, cb!.body.signatures[0]!, 0, parsePublicKey(vault.publicKey, 'ed25519'));
    const asDigest = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...body, ledgerHashAlgorithm: 'SHA256', rawTransactions: [] });
    expect(asDigest.status).toBe(400);
    expect(JSON.stringify(asDigest.json)).toMatch(/32-byte hex digest/);
    const otherRaw = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...body, rawTransactions: [randomBytes(300).toString('hex')] });
    expect(otherRaw.status).toBe(400);
    const ecdsa = custody.control.createVault('ECDSA');
    expect((await call('POST', `/vaults/${ecdsa.vaultId}/sign`, { ...body, publicKeys: [ecdsa.publicKey] })).status).toBe(400);
  });

  it('retries a callback the receiver refused, like the real service', async () => {
    const { custody, receiver } = await setup({ receiverStatuses: [503, 500] });
    const vault = custody.control.createVault();
    const { operationID } = await fetch(`${custody.url}/vaults/${vault.vaultId}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(btcRequest(vault.publicKey)),
    }).then((r) => r.json() as Promise<{ operationID: string }>);
    await receiver.waitFor(1);
    expect(receiver.hits()).toBe(3);
    const op = await eventually(() => custody.control.operation(operationID)?.deliveries[0]);
    expect(op).toEqual({ delivered: 1, failed: 0, dropped: false });
  });

  it('gives up on a receiver that keeps failing; the operation stays COMPLETED', async () => {
    const { custody, receiver } = await setup({ receiverStatuses: [503, 503, 503] });
    const vault = custody.control.createVault();
    await fetch(`${custody.url}/vaults/${vault.vaultId}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(btcRequest(vault.publicKey)),
    });
    await custody.control.settled();
    expect(receiver.hits()).toBe(3);
    expect(custody.control.operations()[0]).toMatchObject({ status: 'COMPLETED', deliveries: [{ delivered: 0, failed: 1 }] });
  });

  it('requires the Bearer key when configured, except for status', async () => {
    const { call } = await setup({ apiKey: 'the-custody-key' });
    expect((await call('GET', '/status')).status).toBe(200);
    expect((await call('POST', '/accounts', { name: 'a' })).status).toBe(401);
    expect((await call('POST', '/accounts', { name: 'a' }, { authorization: 'Bearer wrong' })).json).toMatchObject({ status: 401 });
    expect((await call('POST', '/accounts', { name: 'a' }, { authorization: 'Bearer the-custody-key' })).status).toBe(201);
  });

  it('takes faults through PUT {emulator}/faults and validates them', async () => {
    const { custody } = await setup();
    const vault = custody.control.createVault();
    const basic = `Basic ${Buffer.from(`${custody.admin.user}:${custody.admin.password}`).toString('base64')}`;
    const post = (body: unknown) =>
      fetch(`${custody.emulatorUrl}/faults`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json', authorization: basic },
        body: JSON.stringify(body),
      });
    const faults: EmulatorFaults = { legacyV: true, duplicate: 2 };
    const ok = await post({ vaultId: vault.vaultId, faults });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ global: {}, vaults: { [vault.vaultId]: faults } });
    expect((await post({ faults: { dupliate: 2 } })).status).toBe(400);
    expect((await post({ vaultId: 'nope', faults: {} })).status).toBe(404);
  });
});
