import { createServer, request, type Server } from 'node:http';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CustodyClient, pathSegment } from '../../src/custody/custody-client.js';
import { freePort } from '../../src/dev/free-port.js';
import { ADMIN_KEY, READ_KEY, WITHDRAW_KEY, startTestService, type TestService } from '../helpers/service.js';

/** A request whose path is sent as written (fetch folds `%2E%2E` segments as the URL standard says). */
function rawCall(base: string, method: string, path: string, key: string, body?: unknown): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(base);
  const text = body === undefined ? undefined : JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      { hostname, port, method, path, headers: { authorization: `Bearer ${key}`, ...(text ? { 'content-type': 'application/json' } : {}) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8') || 'null') }));
      },
    );
    req.on('error', reject);
    req.end(text);
  });
}

/**
 * A vault id becomes a path segment of custody URLs: `..` must never make the service call
 * `GET {mng}/publickey` (registration by id) or any other URL above the vault's own.
 */
describe('vault ids that would walk up a custody URL', () => {
  let custody: Server;
  const seen: string[] = [];
  let custodyUrl: string;
  let svc: TestService;

  beforeAll(async () => {
    custody = createServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      res.writeHead(404, { 'content-type': 'application/json' }).end('{}');
    });
    await new Promise<void>((r) => custody.listen(0, '127.0.0.1', () => r()));
    const address = custody.address();
    custodyUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}/custody/api/v1.0/mng`;
    svc = await startTestService(
      { ethdev: { rpcUrl: `http://127.0.0.1:${await freePort()}` } },
      { pipeline: true, env: { CUSTODY_URL: custodyUrl, CUSTODY_RETRIES: '0' } },
    );
  });
  afterAll(async () => {
    await svc?.stop();
    custody?.closeAllConnections();
    await new Promise<void>((r) => custody.close(() => r()));
  });

  it('registration refuses . and .. (422 naming the form) and calls nothing', async () => {
    for (const vaultId of ['.', '..', '.hidden', '../x', 'a/b', '-x', '']) {
      const res = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId, ledgerId: 'ethdev' } });
      expect(res.status, vaultId).toBe(422);
      expect(res.body.errCode).toBe('ERR_INVALID_ARGUMENTS');
      expect(res.body.details, vaultId).toContain('letters, digits, . _ : - beginning with a letter or digit');
    }
    expect(seen).toEqual([]);
    // The forms in use still pass: a UUID, the short names of the emulator and the tests.
    for (const vaultId of ['0b9c6f7e-3a51-4f0e-9d55-2c6f1f0f8a11', 'v1', 'vault-a', 'a.b_c:d']) {
      const res = await svc.call('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId, ledgerId: 'ethdev' } });
      expect(res.status, vaultId).not.toBe(422);
    }
  });

  it('every route with a vault id in its path refuses . and .. (encoded so the client does not fold them)', async () => {
    const paths = [
      ['GET', '/api/v1.0/vaults/%2E%2E/balance', READ_KEY],
      ['GET', '/api/v1.0/vaults/%2E/withdrawals', READ_KEY],
      ['GET', '/api/v1.0/vaults/%2E%2E/withdrawals/some-op', READ_KEY],
      ['POST', '/api/v1.0/vaults/%2E%2E/withdrawals', WITHDRAW_KEY],
      ['POST', '/api/v1.0/vaults/%2E%2E/withdrawals/some-op/cancel', WITHDRAW_KEY],
      ['GET', '/api/v1.0/admin/vaults/%2E%2E', ADMIN_KEY],
      ['DELETE', '/api/v1.0/admin/vaults/%2E', ADMIN_KEY],
    ] as const;
    for (const [method, path, key] of paths) {
      const res = await rawCall(
        svc.url,
        method,
        path,
        key,
        method === 'POST' ? { amount: '1', description: 'x', recipientAddress: '0x00000000000000000000000000000000000000B0' } : undefined,
      );
      expect(res.status, path).toBe(422);
      expect(res.body.details, path).toContain('beginning with a letter or digit');
    }
  });

  it('the custody client refuses to build a URL from ., .. or a segment with /', async () => {
    for (const bad of ['.', '..', 'a/b', '', 'a\\b']) expect(() => pathSegment(bad), bad).toThrow(/cannot be a path segment/);
    expect(pathSegment('v-1.a')).toBe('v-1.a');
    const client = new CustodyClient({ baseUrl: custodyUrl, fetch, logger: pino({ level: 'silent' }), retries: 0 });
    const before = seen.length;
    await expect(client.vaultPublicKey('..')).rejects.toThrow(/cannot be a path segment/);
    await expect(client.accountBackup('v1', '60', '..')).rejects.toThrow(/cannot be a path segment/);
    await expect(client.requestSign('.', { ledger: 'eth' } as never)).rejects.toThrow(/cannot be a path segment/);
    expect(seen.length).toBe(before);
  });
});
