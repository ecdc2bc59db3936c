import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createByowClient, type AppError, type ByowClient } from '../../clients/typescript/src/index.js';
import { schemaSource } from '../../clients/typescript/scripts/schema-source.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { READ_KEY, WITHDRAW_KEY } from '../helpers/service.js';

const CLIENT_DIR = new URL('../../clients/typescript/', import.meta.url);
const RECIPIENT = '0x00000000000000000000000000000000000000D1';

/** The typed client of clients/typescript against the running service (real Redis, anvil, custody emulator). */
describe('TypeScript client (clients/typescript)', () => {
  let chain: TestChain;
  let loop: Loop;
  let reader: ByowClient;
  let withdrawer: ByowClient;

  beforeAll(async () => {
    chain = await startTestChain();
    loop = await startLoop({ ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 } });
    reader = createByowClient({ baseUrl: loop.svc.url, apiKey: READ_KEY });
    withdrawer = createByowClient({ baseUrl: loop.svc.url, apiKey: WITHDRAW_KEY });
  }, 60_000);
  afterAll(async () => {
    await loop?.stop();
    await chain?.stop();
  });

  it('is not stale: regenerating from the served document gives the committed files', async () => {
    const served = (await loop.svc.call('GET', '/api/v1.0/openapi.json')).body as Record<string, unknown>;
    const committedSchema = readFileSync(new URL('src/schema.d.ts', CLIENT_DIR), 'utf8');
    expect(await schemaSource(served), 'clients/typescript is stale: run npm run client:generate').toBe(committedSchema);
    // The version in `info` is the running build's; the rest is the contract.
    const committedDoc = JSON.parse(readFileSync(new URL('openapi.json', CLIENT_DIR), 'utf8')) as Record<string, unknown>;
    expect({ ...served, info: undefined }).toEqual({ ...committedDoc, info: undefined });
  });

  it('the staleness check can fail: a changed document gives other types', async () => {
    const served = (await loop.svc.call('GET', '/api/v1.0/openapi.json')).body as { paths: Record<string, unknown> };
    const changed = { ...served, paths: { ...served.paths, '/api/v1.0/extra': { get: { operationId: 'extra', responses: { 200: { description: 'x' } } } } } };
    expect(await schemaSource(changed)).not.toBe(readFileSync(new URL('src/schema.d.ts', CLIENT_DIR), 'utf8'));
  });

  it('reads config, the coin-type status and a balance', async () => {
    const config = await reader.GET('/api/v1.0/config');
    expect(config.data?.ledgers.map((l) => l.ledgerId)).toEqual(['ethdev']);

    const status = await reader.GET('/{coinType}/api/v1.0/status', { params: { path: { coinType: 'ethdev' }, query: { withDetails: 'true' } } });
    expect(status.response.status).toBe(200);
    expect(status.data).toMatchObject({ version: 'test', ledger: { healthy: true, network: 'chain 31337' }, custody: { healthy: true } });
    expect(status.data?.ledger.height).toBeGreaterThan(0);

    await chain.funder.sendEth(RECIPIENT, 10n ** 18n);
    await chain.funder.sendToken(chain.token.contract, RECIPIENT, 2_500_000n);
    const native = await reader.GET('/api/v1.0/ledgers/{ledgerId}/addresses/{address}/balance', {
      params: { path: { ledgerId: 'ethdev', address: RECIPIENT } },
    });
    expect(native.data).toEqual({ address: RECIPIENT, balances: [{ asset: 'ETH', amount: '1' }] });
    const all = await reader.GET('/api/v1.0/ledgers/{ledgerId}/addresses/{address}/balance', {
      params: { path: { ledgerId: 'ethdev', address: RECIPIENT }, query: { assets: ['DEMO', 'ETH'] } },
    });
    expect(all.data?.balances).toEqual([
      { asset: 'DEMO', amount: '2.5' },
      { asset: 'ETH', amount: '1' },
    ]);
  });

  it('makes a withdrawal and follows it to CONFIRMED', async () => {
    const vault = await loop.vault('ethdev');
    await chain.funder.sendEth(vault.address, 3n * 10n ** 18n);
    const balance = await reader.GET('/api/v1.0/vaults/{vaultId}/balance', { params: { path: { vaultId: vault.vaultId } } });
    expect(balance.data).toEqual({ vaultId: vault.vaultId, address: vault.address, balances: [{ asset: 'ETH', amount: '3' }] });

    const made = await withdrawer.POST('/api/v1.0/vaults/{vaultId}/withdrawals', {
      params: { path: { vaultId: vault.vaultId } },
      body: { recipientAddress: RECIPIENT, amount: '0.5', description: 'typed client' },
    });
    expect(made.error).toBeUndefined();
    expect(made.data).toMatchObject({ status: 'EXECUTING', isComplete: false, description: 'typed client' });
    // The service's own id, and the custody operation id (the spec's `operationID`, also `id`) beside it.
    const id = made.data!.withdrawalId;
    const operationID = made.data!.operationID;
    expect(operationID).toBeDefined();
    expect(made.data!.id).toBe(operationID);
    expect(operationID).not.toBe(id);

    let status: string | undefined;
    for (let i = 0; i < 600 && status !== 'CONFIRMED' && status !== 'FAILED'; i++) {
      const got = await reader.GET('/api/v1.0/vaults/{vaultId}/withdrawals/{id}', { params: { path: { vaultId: vault.vaultId, id } } });
      status = got.data?.status;
      if (status !== 'CONFIRMED') await new Promise((r) => setTimeout(r, 50));
    }
    expect(status).toBe('CONFIRMED');
    const byCustodyId = await reader.GET('/api/v1.0/vaults/{vaultId}/withdrawals/{id}', { params: { path: { vaultId: vault.vaultId, id: operationID! } } });
    expect(byCustodyId.data).toMatchObject({ withdrawalId: id, operationID, status: 'CONFIRMED' });
    const list = await reader.GET('/api/v1.0/vaults/{vaultId}/withdrawals', { params: { path: { vaultId: vault.vaultId }, query: { limit: 10 } } });
    expect(list.data?.items.map((w) => [w.withdrawalId, w.operationID])).toEqual([[id, operationID]]);
  });

  it('gives errors as typed AppError bodies', async () => {
    const unknownAsset = await reader.GET('/api/v1.0/ledgers/{ledgerId}/addresses/{address}/balance', {
      params: { path: { ledgerId: 'ethdev', address: RECIPIENT }, query: { assets: ['USDT'] } },
    });
    expect(unknownAsset.response.status).toBe(422);
    const e: AppError | undefined = unknownAsset.error;
    expect(e).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', valid: ['ETH', 'DEMO', '*'] });

    const anonymous = createByowClient({ baseUrl: loop.svc.url });
    const unauthorised = await anonymous.GET('/api/v1.0/vaults/{vaultId}/balance', { params: { path: { vaultId: 'any' } } });
    expect(unauthorised.response.status).toBe(401);
    expect(unauthorised.error?.errCode).toBe('ERR_UNAUTHORIZED');

    const vault = await loop.vault('ethdev');
    const poor = await withdrawer.POST('/api/v1.0/vaults/{vaultId}/withdrawals', {
      params: { path: { vaultId: vault.vaultId } },
      body: { recipientAddress: RECIPIENT, amount: '1', description: 'empty vault' },
    });
    expect(poor.response.status).toBe(422);
    expect(poor.error).toMatchObject({ errCode: 'ERR_INSUFFICIENT_FUNDS', asset: 'ETH', required: '1', available: '0' });

    const notConfigured = await reader.POST('/api/v1.0/ledgers/{ledgerId}/address-from-publickey', {
      params: { path: { ledgerId: 'stellar' } },
      body: { keys: ['d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a'] },
    });
    expect(notConfigured.data?.items[0]?.address).toMatch(/^G[A-Z2-7]{55}$/);
  });
});
