import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { READ_KEY, TEST_API_KEYS, WITHDRAW_KEY } from '../helpers/service.js';
import { RECIPIENT } from '../pipeline/support.js';

const OTHER_VAULT_KEY = 'key-of-another-vault-0123456789abcdef0';

/**
 * `POST /vaults/{vaultId}/withdrawals` is answered ahead of Express when its body is plain JSON,
 * and by Express when it is not (here: gzip, which only Express's body parser inflates). Both
 * lanes must answer every request alike: the API key, its scope and reach, the body, the path.
 * Express's `res.json` adds an ETag, the lean lane does not: that tells which lane answered.
 */
describe('the lean lane of withdrawal creation', () => {
  let chain: TestChain;
  let loop: Loop;
  let vaultId: string;
  const request = { recipientAddress: RECIPIENT, amount: '0.001', description: 'both lanes' };

  beforeAll(async () => {
    chain = await startTestChain();
    loop = await startLoop(
      { ethdev: { rpcUrl: chain.anvil.url, confirmations: 1 } },
      {
        env: {
          BODY_LIMIT: '2kb',
          API_KEYS: JSON.stringify([...TEST_API_KEYS, { name: 'elsewhere', key: OTHER_VAULT_KEY, scopes: ['read', 'withdraw'], vaults: ['vault-elsewhere'] }]),
        },
      },
    );
    const vault = await loop.vault('ethdev');
    vaultId = vault.vaultId;
    await chain.funder.sendEth(vault.address, 10n ** 18n);
  });
  afterAll(async () => {
    await loop?.stop();
    await chain?.stop();
  });

  async function send(lane: 'lean' | 'express', o: { path?: string; key?: string; text?: string; headers?: Record<string, string> }) {
    const text = o.text ?? JSON.stringify(request);
    const headers: Record<string, string> = { 'content-type': 'application/json', ...o.headers };
    if (o.key) headers.authorization = `Bearer ${o.key}`;
    if (lane === 'express') headers['content-encoding'] = 'gzip';
    const res = await fetch(`${loop.svc.url}/api/v1.0${o.path ?? `/vaults/${vaultId}/withdrawals`}`, {
      method: 'POST',
      headers,
      body: lane === 'express' ? gzipSync(text) : text,
    });
    return { status: res.status, body: (await res.json()) as Record<string, unknown>, etag: res.headers.get('etag'), type: res.headers.get('content-type') };
  }

  it('answers every refusal in both lanes alike, in the AppError shape', async () => {
    const cases: [string, Parameters<typeof send>[1]][] = [
      ['no API key', {}],
      ['an unknown API key', { key: 'not-a-key-0123456789abcdef0123456789' }],
      ['a key without the withdraw scope', { key: READ_KEY }],
      ['a key limited to other vaults', { key: OTHER_VAULT_KEY }],
      ['a vault nobody registered', { key: WITHDRAW_KEY, path: '/vaults/no-such-vault/withdrawals' }],
      ['a vault id of the wrong form', { key: WITHDRAW_KEY, path: '/vaults/a.b/withdrawals' }],
      ['malformed JSON', { key: WITHDRAW_KEY, text: '{"amount": ' }],
      ['a body that breaks the schema', { key: WITHDRAW_KEY, text: JSON.stringify({ ...request, description: '' }) }],
      ['no recipient', { key: WITHDRAW_KEY, text: JSON.stringify({ amount: '1', description: 'x' }) }],
      ['an amount that is no number', { key: WITHDRAW_KEY, text: JSON.stringify({ ...request, amount: 'a lot' }) }],
      ['over BODY_LIMIT', { key: WITHDRAW_KEY, text: JSON.stringify({ ...request, pad: 'x'.repeat(3000) }) }],
    ];
    for (const [name, o] of cases) {
      const lean = await send('lean', o);
      const express = await send('express', o);
      expect([lean.etag, express.etag === null], name).toEqual([null, false]);
      expect(lean.status, name).toBeGreaterThanOrEqual(400);
      expect(lean.status, name).toBeLessThan(500);
      expect({ status: lean.status, body: lean.body, type: lean.type }, name).toEqual({ status: express.status, body: express.body, type: express.type });
    }
    expect((await send('lean', {})).status).toBe(401);
    expect((await send('lean', { key: READ_KEY })).status).toBe(403);
    expect((await send('lean', { key: OTHER_VAULT_KEY })).status).toBe(404);
    expect((await send('lean', { key: WITHDRAW_KEY, text: '{"amount": ' })).body).toMatchObject({ errCode: 'ERR_MALFORMED_JSON' });
  });

  it('creates in either lane, and an Idempotency-Key replayed in the other lane answers the same withdrawal', async () => {
    const made = await send('lean', { key: WITHDRAW_KEY, headers: { 'idempotency-key': 'both-lanes-1' } });
    expect([made.status, made.body.status, made.etag]).toEqual([200, 'EXECUTING', null]);
    const replay = await send('express', { key: WITHDRAW_KEY, headers: { 'idempotency-key': 'both-lanes-1' } });
    expect(replay.status).toBe(200);
    expect(replay.etag).not.toBeNull();
    expect(replay.body.withdrawalId).toBe(made.body.withdrawalId);
    const other = await send('express', { key: WITHDRAW_KEY });
    expect([other.status, other.body.status]).toEqual([200, 'EXECUTING']);
    expect(other.body.withdrawalId).not.toBe(made.body.withdrawalId);
  });

  it('leaves an encoded vault id to Express, which decodes it', async () => {
    const res = await send('lean', { key: WITHDRAW_KEY, path: `/vaults/%${vaultId.charCodeAt(0).toString(16)}${vaultId.slice(1)}/withdrawals` });
    expect(res.etag).not.toBeNull();
    expect([res.status, res.body.status]).toEqual([200, 'EXECUTING']);
  });
});
