import { randomBytes } from 'node:crypto';
import express from 'express';
import { keccak256 } from 'ethers';
import { afterEach, describe, expect, it } from 'vitest';
import { CustodyClient } from '../../src/custody/custody-client.js';
import { CustodyNotFoundError, CustodyNotOperationalError, CustodyRequestError } from '../../src/custody/errors.js';
import { startInMemoryCustodyEmulator, type RunningInMemoryCustodyEmulator } from '../../src/dev/custody-emulator/index.js';
import { NotFoundError, UnavailableError, UpstreamError } from '../../src/platform/errors.js';
import { parsePublicKey } from '../../src/ledger/public-key.js';
import { verifySignature } from '../../src/ledger/signatures.js';
import { capturingLogger, listen, quietLogger, startReceiver } from './helpers.js';

const SECRET = 'callback-secret-for-tests';
const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(opts: { approvers?: number; required?: number; approvalDelayMs?: number; apiKey?: string } = {}) {
  const receiver = await startReceiver(SECRET);
  const custody = await startInMemoryCustodyEmulator({
    callback: { secret: SECRET, baseUrl: receiver.url, attempts: 3, baseDelayMs: 5 },
    apiKey: opts.apiKey,
    quorum: { approvers: opts.approvers ?? 3, required: opts.required ?? 2, approvalDelayMs: opts.approvalDelayMs ?? 5 },
  });
  cleanup.push(receiver.close, custody.stop);
  const client = new CustodyClient({ baseUrl: custody.url, apiKey: opts.apiKey, fetch, logger: quietLogger(), backoffMs: 1 });
  return { receiver, custody, client };
}

function ethPayload(count: number) {
  const raws = Array.from({ length: count }, () => randomBytes(40).toString('hex'));
  return { raws, digests: raws.map((r) => keccak256(`0x${r}`).slice(2)) };
}

function signRequest(custody: RunningInMemoryCustodyEmulator, vault: { publicKey: string }, count = 2) {
  const { raws, digests } = ethPayload(count);
  return {
    description: 'test withdrawal',
    dataToSign: digests,
    publicKeys: digests.map(() => vault.publicKey),
    rawTransactions: raws,
    ledgerHashAlgorithm: 'SHA3_256',
    ledger: 'ethtest',
    providerData: JSON.stringify({ ref: custody.baseUrl }),
  };
}

describe('CustodyClient against the custody emulator', () => {
  it('requests a quorum signature and receives an authenticated callback whose signatures verify', async () => {
    const { receiver, custody, client } = await setup({ approvalDelayMs: 40 });
    const vault = custody.control.createVault('ECDSA');
    const req = signRequest(custody, vault, 3);
    const { operationID } = await client.requestSign(vault.vaultId, req);

    const pending = await client.getSignOperation(operationID);
    expect(pending).toMatchObject({ operationID, status: 'PENDING', isApproved: false, signatures: [] });

    const [cb] = await receiver.waitFor(1);
    expect(cb?.auth).toBeUndefined();
    expect(cb?.ledgerId).toBe('ethtest');
    expect(cb?.body.providerData).toBe(req.providerData);
    const key = parsePublicKey(vault.publicKey, 'secp256k1');
    req.dataToSign.forEach((digest, i) => {
      expect(cb?.body.signatures[i]).toMatch(/^[0-9A-F]{128}$/);
      expect([0, 1]).toContain(cb?.body.v[i]);
      expect(verifySignature(digest, cb!.body.signatures[i]!, cb!.body.v[i], key).recoveryId).toBe(cb?.body.v[i]);
    });

    const done = await client.getSignOperation(operationID);
    expect(done).toMatchObject({ status: 'COMPLETED', isApproved: true, signatures: cb?.body.signatures, v: cb?.body.v });
    expect(done.dataToSign).toEqual(req.dataToSign);
  });

  it('waits for N of M approvals, one per delay tick', async () => {
    const { receiver, custody, client } = await setup({ approvers: 5, required: 3, approvalDelayMs: 30 });
    const vault = custody.control.createVault();
    const started = Date.now();
    const { operationID } = await client.requestSign(vault.vaultId, signRequest(custody, vault, 1));
    const [cb] = await receiver.waitFor(1);
    expect(cb!.at - started).toBeGreaterThanOrEqual(85);
    const op = custody.control.operation(operationID)!;
    expect(op.approvals).toHaveLength(3);
    expect(new Set(op.approvals).size).toBe(3);
  });

  it('resends the callback of a completed operation and refuses others', async () => {
    const { receiver, custody, client } = await setup({ approvalDelayMs: 40 });
    const vault = custody.control.createVault();
    const { operationID } = await client.requestSign(vault.vaultId, signRequest(custody, vault));
    const early = await client.resend(operationID).catch((e: unknown) => e);
    expect(early).toBeInstanceOf(CustodyRequestError);
    expect(early).toMatchObject({ retryable: false, problem: { upstreamStatus: 400, upstreamTitle: 'Bad request' } });
    await receiver.waitFor(1);
    await client.resend(operationID);
    const [first, second] = await receiver.waitFor(2);
    expect(second?.body).toEqual(first?.body);
    await expect(client.resend('no-such-operation')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('reads vault keys and service status, on either management base path', async () => {
    const { custody, client } = await setup();
    const vault = custody.control.createVault('ECDSA');
    const { publicKey } = await client.vaultPublicKey(vault.vaultId);
    expect(publicKey).toBe(vault.publicKey);
    expect(publicKey).toMatch(/^3056301006072A8648CE3D020106052B8104000A03420004[0-9A-F]{128}$/);
    const status = await client.status();
    expect(status).toMatchObject({ healthy: true, keyservice: { healthy: true }, db: { healthy: true }, nativeCrypto: { healthy: true } });
    expect(status.version).toMatch(/^1\.0\.2106\.\d+$/);
    expect(await client.health()).toEqual({ healthy: true });
    const legacy = new CustodyClient({ baseUrl: `${custody.baseUrl}/casp/api/v1.0/mng/`, fetch, logger: quietLogger() });
    expect((await legacy.vaultPublicKey(vault.vaultId)).publicKey).toBe(vault.publicKey);
    await expect(client.vaultPublicKey('nope')).rejects.toBeInstanceOf(CustodyNotFoundError);
  });

  it('sends the API key as a Bearer token and never logs it', async () => {
    const apiKey = 'custody-api-key-0123456789';
    const { custody } = await setup({ apiKey });
    const vault = custody.control.createVault();
    const { logger, lines } = capturingLogger();
    const anonymous = new CustodyClient({ baseUrl: custody.url, fetch, logger, backoffMs: 1 });
    const denied = await anonymous.vaultPublicKey(vault.vaultId).catch((e: unknown) => e);
    expect(denied).toMatchObject({ errCode: 'ERR_CUSTODY_AUTH', problem: { upstreamStatus: 401 } });
    const client = new CustodyClient({ baseUrl: custody.url, apiKey, fetch, logger, backoffMs: 1 });
    expect((await client.vaultPublicKey(vault.vaultId)).publicKey).toBe(vault.publicKey);
    await client.getSignOperation('missing').catch(() => undefined);
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('')).not.toContain(apiKey);
  });
});

describe('CustodyClient retries', () => {
  async function stub(handler: (hit: number, res: express.Response) => void) {
    let hits = 0;
    const app = express();
    app.use((_req, res) => handler(++hits, res));
    const server = await listen(app);
    cleanup.push(server.close);
    return { url: `${server.url}/custody/api/v1.0/mng`, hits: () => hits };
  }
  const client = (url: string, extra: Partial<ConstructorParameters<typeof CustodyClient>[0]> = {}) =>
    new CustodyClient({ baseUrl: url, fetch, logger: quietLogger(), retries: 3, backoffMs: 2, ...extra });
  const req = { description: '', dataToSign: [], publicKeys: [], rawTransactions: [], ledgerHashAlgorithm: 'SHA256', ledger: 'btc', providerData: '' };

  it('retries 503 and 429 with backoff, then succeeds (and accepts `id` for operationID)', async () => {
    const s = await stub((hit, res) => {
      if (hit === 1) return void res.status(503).end();
      if (hit === 2) return void res.status(429).set('retry-after', '0').end();
      res.json({ id: 'op-1', extra: true });
    });
    expect(await client(s.url).requestSign('v1', req)).toEqual({ operationID: 'op-1' });
    expect(s.hits()).toBe(3);
  });

  it('does not retry a 4xx and carries the problem+json title and details', async () => {
    const s = await stub((_hit, res) => {
      res
        .status(400)
        .type('application/problem+json')
        .send(JSON.stringify({ type: '/mng/errors/x', title: 'Bad request', details: 'ledger unknown', status: 400 }));
    });
    const err = await client(s.url)
      .requestSign('v1', req)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UpstreamError);
    expect(err).toMatchObject({
      retryable: false,
      problem: { upstreamStatus: 400, upstreamTitle: 'Bad request', upstreamDetails: 'ledger unknown', upstreamType: '/mng/errors/x' },
    });
    expect(s.hits()).toBe(1);
  });

  it('maps a 404 on an operation to NotFoundError without retrying', async () => {
    const s = await stub((_hit, res) => void res.status(404).json({ title: 'Not found', details: 'no such operation', status: 404 }));
    await expect(client(s.url).getSignOperation('op-x')).rejects.toBeInstanceOf(NotFoundError);
    expect(s.hits()).toBe(1);
  });

  it('gives up after the configured retries with a retryable UnavailableError', async () => {
    const s = await stub((_hit, res) => void res.status(502).end());
    const err = await client(s.url, { retries: 2 })
      .getSignOperation('op-x')
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnavailableError);
    expect(err).toMatchObject({ retryable: true, status: 503, errCode: 'ERR_CUSTODY_UNAVAILABLE' });
    expect(s.hits()).toBe(3);
  });

  it('treats timeouts and refused connections as transient', async () => {
    const s = await stub(() => undefined); // never answers
    const slow = await client(s.url, { retries: 1, timeoutMs: 50 })
      .status()
      .catch((e: unknown) => e);
    expect(slow).toBeInstanceOf(UnavailableError);
    expect(s.hits()).toBe(2);
    const closed = await listen(express());
    await closed.close();
    const refused = client(`${closed.url}/custody/api/v1.0/mng`, { retries: 1 });
    await expect(refused.status()).rejects.toBeInstanceOf(UnavailableError);
    expect(await refused.health()).toMatchObject({ healthy: false });
  });

  it('rejects an answer of the wrong shape without retrying', async () => {
    const s = await stub((_hit, res) => void res.json({ status: 'COMPLETED' }));
    const err = await client(s.url)
      .getSignOperation('op-x')
      .catch((e: unknown) => e);
    expect(err).toMatchObject({ errCode: 'ERR_CUSTODY_BAD_RESPONSE', retryable: false });
    expect(s.hits()).toBe(1);
  });
});

describe('GET {mng}/status in the shapes the custody service answers', () => {
  async function statusServer(status: number, body: unknown) {
    let hits = 0;
    const app = express();
    app.get('/mng/status', (_req, res) => {
      hits++;
      res
        .status(status)
        .type(status === 200 ? 'application/json' : 'application/problem+json')
        .send(JSON.stringify(body));
    });
    const server = await listen(app);
    cleanup.push(server.close);
    const client = new CustodyClient({ baseUrl: `${server.url}/mng`, apiKey: 'k'.repeat(20), fetch, logger: quietLogger(), retries: 3, backoffMs: 1 });
    return { client, hits: () => hits };
  }

  // custody-management-facts.md (1.0.1901) and custody-api.md (1.0.2106): neither has a top-level `healthy`.
  const healthyAnswers: Record<string, unknown> = {
    '1.0.1901 (ukc)': { version: '1.0.1901', ukc: { healthy: true }, db: { healthy: true }, nativeCrypto: { healthy: true } },
    '1.0.2106 (keyservice)': { version: '1.0.2106', keyservice: { healthy: true }, db: { healthy: true, schemaVersion: '7' }, nativeCrypto: { healthy: true } },
  };
  for (const [name, body] of Object.entries(healthyAnswers)) {
    it(`a healthy service answering the ${name} shape, without a top-level healthy, is healthy`, async () => {
      const { client } = await statusServer(200, body);
      expect(await client.status()).toMatchObject({ healthy: true, keyservice: { healthy: true }, db: { healthy: true }, nativeCrypto: { healthy: true } });
      expect(await client.health()).toEqual({ healthy: true });
    });
  }

  it('one unhealthy part (ukc read as the key service) makes the service unhealthy, with its message', async () => {
    const { client } = await statusServer(200, {
      version: '1.0.1901',
      ukc: { healthy: false, errorMessage: 'key servers unreachable' },
      db: { healthy: true },
      nativeCrypto: { healthy: true },
    });
    expect(await client.health()).toEqual({ healthy: false, errorMessage: 'keyservice: key servers unreachable' });
  });

  it('a top-level healthy false is honoured even when every part says healthy', async () => {
    const { client } = await statusServer(200, {
      version: '1.0.2106',
      healthy: false,
      keyservice: { healthy: true },
      db: { healthy: true },
      nativeCrypto: { healthy: true },
    });
    expect(await client.health()).toEqual({ healthy: false, errorMessage: 'custody service reports unhealthy' });
  });

  it('a 500 "not operational" is read once, not retried, and its words are kept (problem body or status body)', async () => {
    const problem = await statusServer(500, {
      type: '/mng/errors/not-operational',
      title: 'Service not operational',
      details: 'database connection lost',
      status: 500,
    });
    const err = await problem.client.status().catch((e: unknown) => e);
    expect(err).toBeInstanceOf(CustodyNotOperationalError);
    expect(err).toMatchObject({
      status: 503,
      errCode: 'ERR_CUSTODY_NOT_OPERATIONAL',
      retryable: true,
      problem: { upstreamStatus: 500, upstreamDetails: 'database connection lost' },
    });
    expect(problem.hits()).toBe(1);
    expect(await problem.client.health()).toEqual({ healthy: false, errorMessage: expect.stringContaining('database connection lost') });

    const status = await statusServer(500, {
      version: '1.0.2106',
      keyservice: { healthy: true },
      db: { healthy: false, errorMessage: 'Redis does not answer' },
      nativeCrypto: { healthy: true },
    });
    expect(await status.client.health()).toEqual({ healthy: false, errorMessage: expect.stringContaining('db: Redis does not answer') });
    expect(status.hits()).toBe(1);
  });
});
