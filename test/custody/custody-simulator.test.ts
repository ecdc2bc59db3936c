import { createHash, randomBytes } from 'node:crypto';
import { afterEach, describe, expect, it } from 'vitest';
import { startCustodySimulator, type Faults } from '../../src/dev/custody-simulator/index.js';
import { parsePublicKey, publicKeyHex } from '../../src/ledger/public-key.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { eventually, startReceiver } from './helpers.js';

const SECRET = 'simulator-test-secret';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(extra: { apiKey?: string; receiverStatuses?: number[]; approvalDelayMs?: number } = {}) {
  const receiver = await startReceiver(SECRET, extra.receiverStatuses);
  const sim = await startCustodySimulator({
    secret: SECRET,
    callbackBaseUrl: receiver.url,
    apiKey: extra.apiKey,
    quorum: { approvers: 2, required: 1, approvalDelayMs: extra.approvalDelayMs ?? 2 },
    callbackRetry: { attempts: 3, baseDelayMs: 5 },
  });
  cleanup.push(receiver.close, sim.stop);
  const call = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${sim.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined };
  };
  return { receiver, sim, call };
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

describe('custody simulator HTTP surface', () => {
  it('creates vaults over HTTP with keys in the custody formats', async () => {
    const { call } = await setup();
    const ecdsa = await call('POST', '/vaults', { name: 'hot' });
    expect(ecdsa.status).toBe(201);
    expect(ecdsa.json.publicKey).toMatch(/^3056301006072A8648CE3D020106052B8104000A03420004[0-9A-F]{128}$/);
    const eddsa = await call('POST', '/vaults', { scheme: 'EDDSA' });
    expect(eddsa.json.publicKey).toMatch(/^[0-9A-F]{64}$/);
    expect((await call('GET', `/vaults/${eddsa.json.vaultId}/publickey`)).json).toEqual({ publicKey: eddsa.json.publicKey });
    expect((await call('POST', '/vaults', { scheme: 'RSA' })).status).toBe(400);
  });

  it('accepts a Bitcoin preimage (DOUBLE_SHA256) and a key given raw and compressed', async () => {
    const { sim, call, receiver } = await setup();
    const vault = sim.sim.createVault('ECDSA');
    const compressed = publicKeyHex(parsePublicKey(vault.publicKey, 'secp256k1'));
    const res = await call('POST', `/vaults/${vault.vaultId}/sign`, btcRequest(compressed));
    expect(res.status).toBe(200);
    const [cb] = await receiver.waitFor(1);
    expect(cb?.ledgerId).toBe('btctest');
    expect(cb?.body.publicKeys).toEqual([compressed]);
  });

  it('rejects a rawTransaction whose hash is not dataToSign, a foreign key, an unknown vault and bad bodies', async () => {
    const { sim, call } = await setup();
    const vault = sim.sim.createVault('ECDSA');
    const other = sim.sim.createVault('ECDSA');
    const good = btcRequest(vault.publicKey);

    const mismatch = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...good, dataToSign: [randomBytes(32).toString('hex')] });
    expect(mismatch.status).toBe(400);
    expect(mismatch.type).toContain('application/problem+json');
    expect(mismatch.json).toMatchObject({ type: '/mng/errors/digest_mismatch', title: 'Bad request', status: 400 });
    expect(mismatch.json.details).toContain('rawTransactions[0]');

    const foreign = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...good, publicKeys: [other.publicKey] });
    expect(foreign.json).toMatchObject({ type: '/mng/errors/wrong_public_key', status: 400 });

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
    expect(sim.sim.operations()).toHaveLength(0);
    expect((await call('GET', '/operations/sign/unknown')).status).toBe(404);
    const route = await call('GET', '/no/such/route');
    expect(route).toMatchObject({ status: 404, json: { status: 404, title: 'Not found' } });
  });

  it('runs many sign requests at once without a listener warning', async () => {
    // Approvals slow enough that all 30 wait at once.
    const { sim, call, receiver } = await setup({ approvalDelayMs: 300 });
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    cleanup.push(async () => void process.off('warning', onWarning));
    const vault = sim.sim.createVault('ECDSA');
    const answers = await Promise.all(Array.from({ length: 30 }, () => call('POST', `/vaults/${vault.vaultId}/sign`, btcRequest(vault.publicKey))));
    expect(answers.map((a) => a.status)).toEqual(Array(30).fill(200));
    await receiver.waitFor(30);
    await sim.sim.settled();
    expect(warnings).not.toContain('MaxListenersExceededWarning');
  });

  it('signs for an ed25519 vault', async () => {
    const { sim, call, receiver } = await setup();
    const vault = sim.sim.createVault('EDDSA');
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
    const { sim, call, receiver } = await setup();
    const vault = sim.sim.createVault('EDDSA');
    const message = randomBytes(300).toString('hex');
    const body = { dataToSign: [message], publicKeys: [vault.publicKey], rawTransactions: [message], ledgerHashAlgorithm: 'PLAIN', ledger: 'SOL', providerData: 'x' };
    expect((await call('POST', `/vaults/${vault.vaultId}/sign`, body)).status).toBe(200);
    const [cb] = await receiver.waitFor(1);
    verifySignature(message, cb!.body.signatures[0]!, 0, parsePublicKey(vault.publicKey, 'ed25519'));
    const asDigest = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...body, ledgerHashAlgorithm: 'SHA256', rawTransactions: [] });
    expect(asDigest.status).toBe(400);
    expect(JSON.stringify(asDigest.json)).toMatch(/32-byte hex digest/);
    const otherRaw = await call('POST', `/vaults/${vault.vaultId}/sign`, { ...body, rawTransactions: [randomBytes(300).toString('hex')] });
    expect(otherRaw.status).toBe(400);
    const ecdsa = sim.sim.createVault('ECDSA');
    expect((await call('POST', `/vaults/${ecdsa.vaultId}/sign`, { ...body, publicKeys: [ecdsa.publicKey] })).status).toBe(400);
  });

  it('retries a callback the receiver refused, like the real service', async () => {
    const { sim, receiver } = await setup({ receiverStatuses: [503, 500] });
    const vault = sim.sim.createVault();
    const { operationID } = await fetch(`${sim.url}/vaults/${vault.vaultId}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(btcRequest(vault.publicKey)),
    }).then((r) => r.json() as Promise<{ operationID: string }>);
    await receiver.waitFor(1);
    expect(receiver.hits()).toBe(3);
    const op = await eventually(() => sim.sim.operation(operationID)?.deliveries[0]);
    expect(op).toEqual({ delivered: 1, failed: 0, dropped: false });
  });

  it('gives up on a receiver that keeps failing; the operation stays COMPLETED', async () => {
    const { sim, receiver } = await setup({ receiverStatuses: [503, 503, 503] });
    const vault = sim.sim.createVault();
    await fetch(`${sim.url}/vaults/${vault.vaultId}/sign`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(btcRequest(vault.publicKey)),
    });
    await sim.sim.settled();
    expect(receiver.hits()).toBe(3);
    expect(sim.sim.operations()[0]).toMatchObject({ status: 'COMPLETED', deliveries: [{ delivered: 0, failed: 1 }] });
  });

  it('requires the Bearer key when configured, except for status', async () => {
    const { call } = await setup({ apiKey: 'the-sim-key' });
    expect((await call('GET', '/status')).status).toBe(200);
    expect((await call('POST', '/vaults', {})).status).toBe(401);
    expect((await call('POST', '/vaults', {}, { authorization: 'Bearer wrong' })).json).toMatchObject({ status: 401 });
    expect((await call('POST', '/vaults', {}, { authorization: 'Bearer the-sim-key' })).status).toBe(201);
  });

  it('takes faults through POST /dev/faults and validates them', async () => {
    const { sim } = await setup();
    const vault = sim.sim.createVault();
    const post = (body: unknown) =>
      fetch(`${sim.baseUrl}/dev/faults`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const faults: Faults = { legacyV: true, duplicate: 2 };
    const ok = await post({ vaultId: vault.vaultId, faults });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual({ global: {}, vaults: { [vault.vaultId]: faults } });
    expect((await post({ faults: { dupliate: 2 } })).status).toBe(400);
    expect((await post({ vaultId: 'nope', faults: {} })).status).toBe(404);
  });
});
