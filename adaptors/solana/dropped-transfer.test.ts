import { getAddressDecoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';
import { nonceAccountAddress } from './index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';

const SOL = 1_000_000_000n;

describe('a Solana transfer the RPC node took but never landed', () => {
  let node: LocalSolanaNode;
  let loop: Loop;

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    loop = await startLoop({ solanadev: { rpcUrl: node.url, tokens: [node.usdc] } }, { env: { RESEND_AFTER_SECONDS: '1' } });
  });
  afterAll(async () => {
    await loop.stop();
    await node.stop();
  });

  const withdraw = (vaultId: string, body: object) => loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  const settled = (vaultId: string, id: string) => loop.waitFor(vaultId, id, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 10_000);

  it('is sent again from its stored bytes (its durable nonce still unused), confirms, and frees the vault for the next withdrawal', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', 2n * SOL);
    const setup = await withdraw(v.vaultId, { recipientAddress: await nonceAccountAddress(v.address), amount: '0.0015', description: 'nonce account' });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    expect((await settled(v.vaultId, setup.body.operationID)).status).toBe('CONFIRMED');

    const to = getAddressDecoder().decode(ed25519Signer().publicKey.bytes);
    const sends = node.facade.sendRequests.length;
    node.facade.dropNextSend();
    const w = await withdraw(v.vaultId, { recipientAddress: to, amount: '0.1', description: 'dropped once' });
    expect(w.status, JSON.stringify(w.body)).toBe(200);
    const done = await settled(v.vaultId, w.body.operationID);
    expect(done.status, JSON.stringify(done.history)).toBe('CONFIRMED');
    // The same signed transaction twice: the dropped send and the resend.
    const [txid] = done.txids as string[];
    expect(node.facade.sendRequests.slice(sends)).toEqual([txid, txid]);
    expect(node.svm.getBalance(to as never)).toBe(100_000_000n);

    const next = await withdraw(v.vaultId, { recipientAddress: to, amount: '0.2', description: 'next one' });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });
});
