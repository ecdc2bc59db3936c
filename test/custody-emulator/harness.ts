import type { Server } from 'node:http';
import { createPublicKey, verify as nodeVerify } from 'node:crypto';
import express, { type RequestHandler } from 'express';
import { Signature, SigningKey } from 'ethers';
import type { Redis } from 'ioredis';
import { expect } from 'vitest';
import { startCustodyEmulator, type ApproverPolicyInput, type RunningCustodyEmulator } from '../../src/dev/custody-emulator/index.js';
import type { CallbackBody } from '../../src/dev/custody-emulator/index.js';
import { parsePublicKey, uncompressedPoint } from '../../src/ledger/public-key.js';
import { freePort } from '../../src/dev/free-port.js';
import { testRedis } from '../helpers/redis.js';
import { deleteKeysUnder } from '../../src/dev/prefix-keys.js';

export const ADMIN = { user: 'so', password: 'emulator-admin-password' };

export interface Answer {
  status: number;
  type: string;
  json: any;
}

export interface CallOptions {
  token?: string;
  basic?: { user: string; password: string };
  form?: boolean;
  base?: 'mng' | 'legacy' | 'emulator';
}

export interface ReceivedCallback {
  ledgerId: string | null;
  headers: Record<string, string | string[] | undefined>;
  body: CallbackBody;
}

/** A signing-callback receiver that records each POST as it came, headers included. */
export async function startReceiver() {
  const received: ReceivedCallback[] = [];
  const app = express();
  app.post('/api/v1.0/sign_complete_callback', express.json(), ((req, res) => {
    received.push({ ledgerId: (req.query.ledgerId as string) ?? null, headers: req.headers, body: req.body as CallbackBody });
    res.status(200).json({});
  }) as RequestHandler);
  const port = await freePort();
  const server = await new Promise<Server>((resolve, reject) => {
    const s = app.listen(port, '127.0.0.1', (err?: Error) => (err ? reject(err) : resolve(s)));
  });
  return {
    url: `http://127.0.0.1:${port}`,
    received,
    async waitFor(n: number, timeoutMs = 15_000): Promise<ReceivedCallback[]> {
      const until = Date.now() + timeoutMs;
      while (received.length < n) {
        if (Date.now() > until) throw new Error(`expected ${n} callbacks, got ${received.length}`);
        await new Promise((r) => setTimeout(r, 10));
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export interface HarnessOptions {
  redis?: Redis;
  prefix?: string;
  approverPolicy?: ApproverPolicyInput;
  callbackSecret?: string;
  callbackBaseUrl?: string;
  legacyRevision?: '1.0.1905' | '1.0.1811';
  apiKey?: { clientId: string; key: string };
  clock?: { now: number };
  passwordHasher?: (password: string, salt: string) => Buffer;
  loginLimit?: { perUser?: number; perPeer?: number; windowSeconds?: number };
}

export type Harness = Awaited<ReturnType<typeof startHarness>>;

/** An emulator on a free port over the run's Redis (own prefix), with an HTTP caller and the admin's token. */
export async function startHarness(opts: HarnessOptions = {}) {
  const r = opts.redis ? { redis: opts.redis, prefix: opts.prefix as string } : testRedis();
  const running: RunningCustodyEmulator = await startCustodyEmulator({
    redis: r.redis,
    prefix: opts.prefix ?? r.prefix,
    admin: ADMIN,
    approverPolicy: opts.approverPolicy,
    callback: { baseUrl: opts.callbackBaseUrl, secret: opts.callbackSecret, attempts: 2, baseDelayMs: 10 },
    legacyRevision: opts.legacyRevision,
    apiKey: opts.apiKey,
    now: opts.clock ? () => (opts.clock as { now: number }).now : undefined,
    passwordHasher: opts.passwordHasher,
    loginLimit: opts.loginLimit,
  });
  const bases = { mng: running.url, legacy: running.legacyUrl, emulator: running.emulatorUrl };
  const call = async (method: string, path: string, body?: unknown, o: CallOptions = {}): Promise<Answer> => {
    const headers: Record<string, string> = {};
    if (o.token) headers.authorization = `Bearer ${o.token}`;
    if (o.basic) headers.authorization = `Basic ${Buffer.from(`${o.basic.user}:${o.basic.password}`).toString('base64')}`;
    let payload: string | undefined;
    if (body !== undefined) {
      headers['content-type'] = o.form ? 'application/x-www-form-urlencoded' : 'application/json';
      payload = typeof body === 'string' ? body : o.form ? new URLSearchParams(body as Record<string, string>).toString() : JSON.stringify(body);
    }
    const res = await fetch(`${bases[o.base ?? 'mng']}${path}`, { method, headers, body: payload });
    const text = await res.text();
    return { status: res.status, type: res.headers.get('content-type') ?? '', json: text ? JSON.parse(text) : undefined };
  };
  const login = async (user = ADMIN.user, password = ADMIN.password, base: 'mng' | 'legacy' = 'mng') =>
    call('POST', '/auth/token', { grant_type: 'password', client_id: 'tests', scope: '/mng' }, { basic: { user, password }, form: true, base });
  const token = (await login()).json.access_token as string;
  /** Calls with the admin's token. */
  const api = (method: string, path: string, body?: unknown, o: CallOptions = {}) => call(method, path, body, { token, ...o });
  const device = (method: string, path: string, body?: unknown) => call(method, path, body, { base: 'emulator', basic: ADMIN });
  return { running, call, api, device, login, token, redis: r.redis, prefix: opts.prefix ?? r.prefix, stop: running.stop };
}

/** A problem+json answer with the spec's four fields. */
export function expectProblem(res: Answer, status: number, typeContains?: string): void {
  expect(res.status, JSON.stringify(res.json)).toBe(status);
  expect(res.type).toContain('application/problem+json');
  expect(res.json).toMatchObject({ status, title: expect.any(String), details: expect.any(String), type: expect.stringMatching(/^\/mng\/errors\//) });
  if (typeContains) expect(res.json.type).toContain(typeContains);
}

/** An account, three activated participants and a 2-of-3 vault, joined by every member unless `join` is false. */
export async function quorumVault(h: Harness, vault: Record<string, unknown> = {}, join = true) {
  const account = (await h.api('POST', '/accounts', { name: `acct-${Math.random().toString(36).slice(2)}` })).json;
  const members: { id: string; activationCode: string; name: string }[] = [];
  for (const name of ['alice', 'bob', 'carol']) {
    const p = await h.api('POST', `/accounts/${account.id}/participants`, { name, email: `${name}@example.com`, role: 'approver' });
    expect(p.status).toBe(201);
    expect((await h.device('POST', `/participants/${p.json.id}/activate`, { activationCode: p.json.activationCode })).status).toBe(200);
    members.push(p.json);
  }
  const created = await h.api('POST', `/accounts/${account.id}/vaults`, {
    name: 'hot',
    cryptoKind: 'ECDSA',
    groups: [{ name: 'approvers', requiredApprovals: 2, members: members.map(({ id }) => ({ id })) }],
    ...vault,
  });
  expect(created.status, JSON.stringify(created.json)).toBe(201);
  if (join) for (const m of members) expect((await h.device('POST', `/participants/${m.id}/vaults/${created.json.id}/join`)).status).toBe(200);
  return { account, members, vaultId: created.json.id as string };
}

/** Checks a callback signature with libraries independent of the emulator's signer. */
export function expectValidSignature(keyText: string, digestHex: string, sigHex: string, v: number, scheme: 'secp256k1' | 'ed25519' = 'secp256k1'): void {
  const key = parsePublicKey(keyText, scheme);
  if (scheme === 'ed25519') {
    const spki = Buffer.concat([Buffer.from('302a300506032b6570032100', 'hex'), Buffer.from(key.bytes)]);
    expect(nodeVerify(null, Buffer.from(digestHex, 'hex'), createPublicKey({ key: spki, format: 'der', type: 'spki' }), Buffer.from(sigHex, 'hex'))).toBe(true);
    return;
  }
  const sig = Signature.from({ r: `0x${sigHex.slice(0, 64)}`, s: `0x${sigHex.slice(64, 128)}`, v: 27 + v });
  const recovered = SigningKey.recoverPublicKey(`0x${digestHex}`, sig);
  expect(recovered.toLowerCase()).toBe(`0x${Buffer.from(uncompressedPoint(key)).toString('hex')}`);
}

/** Removes a test's keys from the shared Redis and closes the client. */
export async function dropPrefix(redis: Redis, prefix: string): Promise<void> {
  await deleteKeysUnder(redis, prefix);
  redis.disconnect();
}
