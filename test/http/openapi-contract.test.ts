import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { compileErrors, validate } from '@readme/openapi-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { formatAmount } from '../../src/ledger/amounts.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { operationFor, responseErrors, type OpenApiDoc } from '../helpers/openapi.js';
import { ADMIN_KEY, READ_KEY, WITHDRAW_KEY } from '../helpers/service.js';
import { postCallback, signedCallbackBody, until } from '../pipeline/support.js';

const RECIPIENT = '0x00000000000000000000000000000000000000C1';

/** A webhook receiver on a free port: 500 on /fail, 204 elsewhere. */
async function startWebhookReceiver(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume();
    res.statusCode = req.url === '/fail' ? 500 : 204;
    res.end();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((done) => {
        server.close(() => done());
        server.closeAllConnections();
      }),
  };
}

/**
 * The served document is valid OpenAPI 3.1 (a standard validator), and real responses of every
 * operation it lists match its response schemas (an OpenAPI response validator from npm).
 */
describe('OpenAPI document against real responses', () => {
  let chain: TestChain;
  let loop: Loop;
  let doc: OpenApiDoc;
  let receiver: { url: string; close(): Promise<void> };
  const sampled = new Map<string, Set<number>>();
  const mismatches: string[] = [];

  /** A real request; its response is checked against the document. */
  async function sample(method: string, path: string, opts: Parameters<Loop['svc']['call']>[2] = {}) {
    const res = await loop.svc.call(method, path, opts);
    const { key, op } = operationFor(doc, method, path);
    // A 204 has no body at all (the helper reads it as ''); the document says it has none.
    const body = res.status === 204 && res.body === '' ? undefined : res.body;
    const errors = responseErrors(doc, op, res.status, body);
    if (errors) mismatches.push(`${key} → ${res.status}: ${JSON.stringify(errors)} body ${JSON.stringify(res.body).slice(0, 300)}`);
    if (!sampled.has(key)) sampled.set(key, new Set());
    sampled.get(key)!.add(res.status);
    return res;
  }

  beforeAll(async () => {
    chain = await startTestChain();
    receiver = await startWebhookReceiver();
    // Webhooks to loopback allowed; a failing delivery gives up after about a second.
    const webhooks = { WEBHOOK_ALLOW_PRIVATE: 'true', WEBHOOK_RETRY_SECONDS: '1', WEBHOOK_BACKOFF_MS: '50', WEBHOOK_BACKOFF_MAX_MS: '200' };
    loop = await startLoop({ ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 } }, { env: webhooks });
    doc = (await loop.svc.call('GET', '/api/v1.0/openapi.json')).body;
  }, 60_000);
  afterAll(async () => {
    await loop?.stop();
    await receiver?.close();
    await chain?.stop();
  });

  it('validates as OpenAPI 3.1 with @readme/openapi-parser; the old $defs form would not', async () => {
    const result = await validate(structuredClone(doc) as never);
    expect(result.valid, result.valid ? '' : compileErrors(result)).toBe(true);
    const broken = structuredClone(doc);
    broken.components.schemas.Broken = { $ref: '#/$defs/AppError' };
    broken.paths['/api/v1.0/config']!.get!.responses['200'] = {
      description: 'x',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Broken' } } },
    };
    expect((await validate(broken as never)).valid).toBe(false);
  });

  it('lists the routes served outside route() too, with their security', () => {
    expect(Object.keys(doc.paths)).toEqual(
      expect.arrayContaining(['/api/v1.0/openapi.json', '/metrics', '/admin/queues', '/{coinType}/api/v1.0/status', '/api/v1.0/sign_complete_callback']),
    );
    expect(Object.keys(doc.components.securitySchemes).sort()).toEqual(['bearer', 'callbackSignature', 'callbackTimestamp', 'dashboardBasic']);
    const callback = doc.paths['/api/v1.0/sign_complete_callback']!.post!;
    expect(callback.security).toEqual([{ callbackTimestamp: [], callbackSignature: [] }, {}]);
    expect((callback.responses['401'] as { description: string }).description).toMatch(/x-callback-signature/i);
    expect(doc.paths['/admin/queues']!.get!.security).toEqual([{ dashboardBasic: [] }, { bearer: ['admin'] }]);
    expect(doc.paths['/api/v1.0/config']!.get!.security).toEqual([]);
    // Hoisted: no schema refers to a $defs of its own.
    expect(JSON.stringify(doc)).not.toContain('#/$defs/');
    expect(doc.components.schemas.AppError.additionalProperties).not.toBe(false);
  });

  it('the response validator is not vacuous: a body without operationID fails', () => {
    const op = doc.paths['/api/v1.0/vaults/{vaultId}/withdrawals']!.post!;
    expect(responseErrors(doc, op, 200, { status: 'EXECUTING' })).toBeDefined();
    expect(responseErrors(doc, op, 422, { title: 'x', details: 'y', errCode: 'E', type: '/t', valid: ['a'] })).toBeUndefined();
    // Through the AppError $ref in components.
    expect(responseErrors(doc, op, 422, { errCode: 'E' })).toBeDefined();
    expect(responseErrors(doc, op, 503, { title: 'x', details: 'y', errCode: 'E', type: '/t', index: 'one' })).toBeDefined();
    // A 204 is documented without content: any body there fails.
    const del = doc.paths['/api/v1.0/admin/webhooks/{id}']!.delete!;
    expect(del.responses['204']).toEqual({ description: expect.any(String) });
    expect(responseErrors(doc, del, 204, { id: 'x' })).toBeDefined();
  });

  it('every operation answers as documented (success and error responses)', async () => {
    const svc = loop.svc;
    const rawKey = `04${'11'.repeat(64)}`;
    await sample('GET', '/api/v1.0/config');
    await sample('GET', '/api/v1.0/status');
    await sample('GET', '/api/v1.0/openapi.json');
    await sample('GET', `/api/v1.0/ledgers/ethdev/addresses/${RECIPIENT}/valid`);
    await sample('GET', `/api/v1.0/ledgers/eth/addresses/${RECIPIENT}/valid`);
    await sample('GET', `/api/v1.0/ledgers/doge/addresses/${RECIPIENT}/valid`);
    await sample('POST', '/api/v1.0/ledgers/ethtest/address-from-publickey', {
      key: READ_KEY,
      body: {
        keys: [`04${'79be667ef9dcbbac55a06295ce870b07029bfcdb2dce28d959f2815b16f81798'}${'483ada7726a3c4655da4fbfc0e1108a8fd17b448a68554199c47d08ffb10d4b8'}`],
      },
    });
    await sample('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { key: READ_KEY, body: { keys: [rawKey] } });
    await sample('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { body: { keys: [rawKey] } });
    await sample('POST', '/api/v1.0/ledgers/ethdev/address-from-publickey', { key: READ_KEY, rawBody: '{"keys": [' });
    await sample('GET', `/api/v1.0/ledgers/ethdev/addresses/${RECIPIENT}/balance`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/ledgers/ethdev/addresses/${RECIPIENT}/balance?assets[]=ETH&assets[]=DEMO`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/ledgers/ethdev/addresses/${RECIPIENT}/balance?assets=USDT`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/ledgers/eth/addresses/${RECIPIENT}/balance`, { key: READ_KEY });

    // Vault registry.
    const simVault = loop.custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    const created = await sample('POST', '/api/v1.0/admin/vaults', {
      key: ADMIN_KEY,
      body: { vaultId: simVault.vaultId, ledgerId: 'ethdev', publicKey: simVault.publicKey },
    });
    expect(created.status).toBe(201);
    await sample('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: simVault.vaultId, ledgerId: 'ethdev', publicKey: simVault.publicKey } });
    await sample('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: 'x', ledgerId: 'ethdev' } });
    await sample('GET', '/api/v1.0/admin/vaults', { key: ADMIN_KEY });
    await sample('GET', '/api/v1.0/admin/vaults', { key: READ_KEY });
    await sample('GET', '/api/v1.0/admin/vaults');
    await sample('GET', `/api/v1.0/admin/vaults/${simVault.vaultId}`, { key: ADMIN_KEY });
    await sample('GET', '/api/v1.0/admin/vaults/nope', { key: ADMIN_KEY });
    const spare = loop.custody.control.createVault('ECDSA', { ledger: 'ethdev' });
    await sample('POST', '/api/v1.0/admin/vaults', { key: ADMIN_KEY, body: { vaultId: spare.vaultId, ledgerId: 'ethdev', publicKey: spare.publicKey } });
    await sample('DELETE', `/api/v1.0/admin/vaults/${spare.vaultId}`, { key: ADMIN_KEY });
    await sample('DELETE', `/api/v1.0/admin/vaults/${spare.vaultId}`, { key: ADMIN_KEY });

    // Balances and a withdrawal through the whole loop.
    const address = created.body.address as string;
    await chain.funder.sendEth(address, 2n * 10n ** 18n);
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/balance?assets=*`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/balance`, { key: READ_KEY });
    await sample('GET', '/api/v1.0/vaults/nope/balance', { key: READ_KEY });
    const w = await sample('POST', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: RECIPIENT, amount: '0.25', description: 'contract' },
    });
    expect(w.status).toBe(200);
    expect(w.body.id).toBe(w.body.operationID);
    const poor = await sample('POST', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals`, {
      key: WITHDRAW_KEY,
      body: { recipientAddress: RECIPIENT, amount: '5', description: 'too much' },
    });
    expect(poor.status).toBe(422);
    expect(poor.body).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', asset: 'ETH', required: '5', requiredBaseUnits: String(5n * 10n ** 18n) });
    // Asset units on the wire, exact base units beside them.
    // 2 ETH, or less the first withdrawal once it is mined.
    expect(poor.body.available).toMatch(/^(2|1\.7\d+)$/);
    expect(formatAmount(BigInt(poor.body.availableBaseUnits), 18)).toBe(poor.body.available);
    await sample('POST', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals`, {
      key: READ_KEY,
      body: { recipientAddress: RECIPIENT, amount: '1', description: 'x' },
    });
    await sample('POST', '/api/v1.0/vaults/nope/withdrawals', { key: WITHDRAW_KEY, body: { recipientAddress: RECIPIENT, amount: '1', description: 'x' } });
    const done = await loop.waitFor(simVault.vaultId, w.body.operationID, (op) => op.status === 'CONFIRMED', 30_000);
    expect(done.id).toBe(w.body.operationID);
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals/${w.body.operationID}`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals/nope`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals?limit=5`, { key: READ_KEY });
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/withdrawals?limit=0`, { key: READ_KEY });

    // The callback: unauthenticated, unknown digests, and the real one again.
    const real = signedCallbackBody(loop, w.body.operationID);
    const callbackPath = '/api/v1.0/sign_complete_callback?ledgerId=ethdev';
    const unauth = await sample('POST', callbackPath, { body: real });
    expect(unauth.status).toBe(401);
    const repeated = await postCallback(svc, 'ethdev', real);
    expect(repeated.status).toBe(200);
    record('POST /api/v1.0/sign_complete_callback', repeated);
    const unknown = await postCallback(svc, 'ethdev', { ...real, dataToSign: ['00'.repeat(32)] });
    expect(unknown.status).toBeGreaterThanOrEqual(400);
    record('POST /api/v1.0/sign_complete_callback', unknown);

    // Speed-up and cancel: final already (409), unknown (404), a cancel while signatures are awaited (200).
    const wPath = `/api/v1.0/vaults/${simVault.vaultId}/withdrawals`;
    await sample('POST', `${wPath}/${w.body.operationID}/speed-up`, { key: WITHDRAW_KEY, body: { fee: 'HIGH' } });
    await sample('POST', `${wPath}/nope/speed-up`, { key: WITHDRAW_KEY });
    await sample('POST', `${wPath}/${w.body.operationID}/cancel`, { key: WITHDRAW_KEY });
    loop.custody.control.setFaults({ holdApprovals: true }, simVault.vaultId);
    const held = await sample('POST', wPath, { key: WITHDRAW_KEY, body: { recipientAddress: RECIPIENT, amount: '0.01', description: 'held' } });
    expect(held.status).toBe(200);
    const canceled = await sample('POST', `${wPath}/${held.body.operationID}/cancel`, { key: WITHDRAW_KEY });
    expect(canceled.status, JSON.stringify(canceled.body)).toBe(200);
    await sample('POST', `${wPath}/nope/cancel`, { key: WITHDRAW_KEY });

    // The operator's view across vaults.
    const all = await sample('GET', '/api/v1.0/admin/withdrawals?status=CONFIRMED&ledgerId=ethdev&limit=1', { key: ADMIN_KEY });
    expect(all.body.items.map((i: { id: string }) => i.id)).toEqual([w.body.operationID]);
    await sample('GET', `/api/v1.0/admin/withdrawals?vaultId=${simVault.vaultId}&stuck=false&from=2020-01-01T00:00:00Z`, { key: ADMIN_KEY });
    await sample('GET', '/api/v1.0/admin/withdrawals?ledgerId=doge', { key: ADMIN_KEY });
    await sample('GET', '/api/v1.0/admin/withdrawals', { key: READ_KEY });
    // Deposits: a vault's and the operator's lists (empty here; their items are sampled in test/deposits).
    await sample('GET', `/api/v1.0/vaults/${simVault.vaultId}/deposits?state=DETECTED,CONFIRMED&limit=5`, { key: READ_KEY });
    await sample('GET', '/api/v1.0/vaults/no-such-vault/deposits', { key: READ_KEY });
    await sample('GET', '/api/v1.0/admin/deposits?ledgerId=ethdev&asset=ETH&from=2020-01-01T00:00:00Z', { key: ADMIN_KEY });
    await sample('GET', '/api/v1.0/admin/deposits?ledgerId=doge', { key: ADMIN_KEY });
    // A back-fill of the vault's earlier blocks (202, or 409 before the ledger's first scan), refused (422), read (200 / 404).
    await sample('POST', '/api/v1.0/admin/deposits/backfill', { key: ADMIN_KEY, body: { vaultId: simVault.vaultId, fromHeight: 0 } });
    await sample('POST', '/api/v1.0/admin/deposits/backfill', { key: ADMIN_KEY, body: { vaultId: 'no-such-vault', fromHeight: 0 } });
    await sample('GET', `/api/v1.0/admin/deposits/backfill/${simVault.vaultId}`, { key: ADMIN_KEY });
    await sample('GET', '/api/v1.0/admin/deposits/backfill/no-such-vault', { key: ADMIN_KEY });

    // Webhooks, against a receiver on loopback (allowed in this service's configuration).
    const hooks = '/api/v1.0/admin/webhooks';
    const sub = await sample('POST', hooks, { key: ADMIN_KEY, body: { url: `${receiver.url}/hooks`, events: ['*'], description: 'contract' } });
    expect(sub.status, JSON.stringify(sub.body)).toBe(201);
    await sample('POST', hooks, { key: ADMIN_KEY, body: { url: 'ftp://example.com/x', events: ['nope'] } });
    await sample('GET', hooks, { key: ADMIN_KEY });
    const test = await sample('POST', `${hooks}/${sub.body.id}/test`, { key: ADMIN_KEY });
    expect(test.status).toBe(202);
    await sample('POST', `${hooks}/nope/test`, { key: ADMIN_KEY });
    await until(
      'a delivered delivery',
      async () => (await svc.call('GET', `${hooks}/${sub.body.id}/deliveries?status=delivered`, { key: ADMIN_KEY })).body.items[0],
      30_000,
    );
    const deliveries = await sample('GET', `${hooks}/${sub.body.id}/deliveries?limit=1`, { key: ADMIN_KEY });
    expect(deliveries.body.items.length).toBe(1);
    await sample('GET', `${hooks}/nope/deliveries`, { key: ADMIN_KEY });
    // Delivered already: nothing to send again (409); unknown (404).
    const delivered = (await svc.call('GET', `${hooks}/${sub.body.id}/deliveries?status=delivered`, { key: ADMIN_KEY })).body.items[0];
    const retried = await sample('POST', `${hooks}/${sub.body.id}/deliveries/${delivered.id}/retry`, { key: ADMIN_KEY });
    expect(retried.status).toBe(409);
    await sample('POST', `${hooks}/${sub.body.id}/deliveries/nope/retry`, { key: ADMIN_KEY });
    // A receiver that answers 500 until its retry window (1 s here) is over: failed, then sent again.
    const failing = (await svc.call('POST', hooks, { key: ADMIN_KEY, body: { url: `${receiver.url}/fail`, events: ['*'] } })).body;
    await svc.call('POST', `${hooks}/${failing.id}/test`, { key: ADMIN_KEY });
    const failed = await until(
      'a failed delivery',
      async () => (await svc.call('GET', `${hooks}/${failing.id}/deliveries?status=failed`, { key: ADMIN_KEY })).body.items[0],
      30_000,
    );
    const again = await sample('POST', `${hooks}/${failing.id}/deliveries/${failed.id}/retry`, { key: ADMIN_KEY });
    expect(again.status, JSON.stringify(again.body)).toBe(202);
    expect((await sample('DELETE', `${hooks}/${sub.body.id}`, { key: ADMIN_KEY })).status).toBe(204);
    await sample('DELETE', `${hooks}/${sub.body.id}`, { key: ADMIN_KEY });

    // Served outside route(), and the root-level coin-type status.
    await sample('GET', '/ethdev/api/v1.0/status');
    await sample('GET', '/ethdev/api/v1.0/status?withDetails=true');
    await sample('GET', '/eth/api/v1.0/status');
    await sample('GET', '/doge/api/v1.0/status');
    const metrics = await sample('GET', '/metrics');
    expect(metrics.body).toContain('byow_http_request_duration_seconds');
    await sample('GET', '/admin/queues');
    const page = await sample('GET', '/admin/queues', { headers: { authorization: `Basic ${Buffer.from(`x:${ADMIN_KEY}`).toString('base64')}` } });
    expect(page.status).toBe(200);

    expect(mismatches).toEqual([]);
    const missing = Object.entries(doc.paths)
      .flatMap(([p, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${p}`))
      .filter((k) => !sampled.has(k));
    expect(missing, 'operations in the document without a sampled response: add one here').toEqual([]);
  }, 120_000);

  /** Checks a response obtained another way (the signed callback) against the document. */
  function record(key: string, res: { status: number; body: unknown }): void {
    const [method, template] = key.split(' ') as [string, string];
    const op = doc.paths[template]![method.toLowerCase()]!;
    const errors = responseErrors(doc, op, res.status, res.body);
    if (errors) mismatches.push(`${key} → ${res.status}: ${JSON.stringify(errors)}`);
    if (!sampled.has(key)) sampled.set(key, new Set());
    sampled.get(key)!.add(res.status);
  }
});
