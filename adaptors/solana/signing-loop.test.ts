import { address, getAddressDecoder, getAddressEncoder, getProgramDerivedAddress } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { startLoop, type Loop } from '../../test/helpers/loop.js';
import { WITHDRAW_KEY } from '../../test/helpers/service.js';
import { nonceAccountAddress } from './index.js';
import { associatedTokenAccount, readNonceAccount } from './logic/accounts.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { SolanaRpc } from './network/rpc.js';

const SOL = 1_000_000_000n;
const SYSTEM_PROGRAM = '11111111111111111111111111111111';

describe('signing loop on LiteSVM: withdraw → quorum (ed25519 over the message) → callback → send → CONFIRMED', () => {
  let node: LocalSolanaNode;
  let loop: Loop;
  let rpc: SolanaRpc;

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    rpc = new SolanaRpc(node.url, fetch);
    loop = await startLoop({ solanadev: { rpcUrl: node.url, tokens: [node.usdc] } });
  });
  afterAll(async () => {
    await loop.stop();
    await node.stop();
  });

  const withdraw = (vaultId: string, body: object) => loop.svc.call('POST', `/api/v1.0/vaults/${vaultId}/withdrawals`, { key: WITHDRAW_KEY, body });
  const confirmed = (vaultId: string, id: string) => loop.waitFor(vaultId, id, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
  const lamports = (a: string) => node.svm.getBalance(a as never) ?? 0n;
  const usdc = async (owner: string) => {
    const [acc] = await rpc.getMultipleAccounts([await associatedTokenAccount(owner, node.usdc.mint)]);
    return acc ? Buffer.from(acc.data[0], 'base64').readBigUInt64LE(64) : 0n;
  };
  const freshAddress = async () => getAddressDecoder().decode(ed25519Signer().publicKey.bytes);

  /** A vault with SOL and its nonce account set up through the loop. */
  async function readyVault(): Promise<{ vaultId: string; address: string }> {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', 2n * SOL);
    const nonce = await nonceAccountAddress(v.address);
    const setup = await withdraw(v.vaultId, { recipientAddress: nonce, amount: '0.0015', description: 'nonce account' });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    expect((await confirmed(v.vaultId, setup.body.operationID)).status).toBe('CONFIRMED');
    return v;
  }

  it('a withdrawal to the vault nonce address is the setup, asked for by hand (422 below its rent); no setup is made for it', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', SOL);
    const nonce = await nonceAccountAddress(v.address);
    const tooSmall = await withdraw(v.vaultId, { recipientAddress: nonce, amount: '0.001', description: 'below rent' });
    expect(tooSmall.status).toBe(422);
    const setup = await withdraw(v.vaultId, { recipientAddress: nonce, amount: '0.0015', description: 'nonce account' });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    expect(setup.body.appData).toBeDefined();
    expect(setup.body.setup).toBeUndefined();
    const done = await confirmed(v.vaultId, setup.body.operationID);
    expect(done.status, JSON.stringify(done)).toBe('CONFIRMED');
    const [acc] = await rpc.getMultipleAccounts([nonce]);
    expect(readNonceAccount(acc!, nonce).authority).toBe(v.address);
    expect(lamports(nonce)).toBe(1_500_000n);
  });

  it('pays a program-derived (off-curve) address only when the request sets allowOffCurveRecipient, which the withdrawal keeps', async () => {
    const v = await readyVault();
    const [pda] = await getProgramDerivedAddress({
      programAddress: address(SYSTEM_PROGRAM),
      seeds: ['byow-test', getAddressEncoder().encode(address(await freshAddress()))],
    });
    const body = { recipientAddress: pda, amount: '0.01', description: 'to a PDA' };
    const refused = await withdraw(v.vaultId, body);
    expect(refused.status).toBe(422);
    expect(refused.body).toMatchObject({ errCode: 'ERR_INVALID_ARGUMENTS', field: 'recipientAddress' });
    expect(refused.body.details).toContain('off the ed25519 curve');
    expect(refused.body.details).toContain('allowOffCurveRecipient');
    const paid = await withdraw(v.vaultId, { ...body, allowOffCurveRecipient: true });
    expect(paid.status, JSON.stringify(paid.body)).toBe(200);
    expect(paid.body.appData.request).toMatchObject({ recipientAddress: pda, allowOffCurveRecipient: true });
    expect((await confirmed(v.vaultId, paid.body.operationID)).status).toBe('CONFIRMED');
    expect(lamports(pda)).toBe(10_000_000n);
  });

  it('sends SOL to a new account (422 below its rent-exempt minimum), then SPL with and without the recipient token account', async () => {
    const v = await readyVault();
    await node.fund(v.address, 'USDC', 50_000_000n);
    const to = await freshAddress();
    const small = await withdraw(v.vaultId, { recipientAddress: to, amount: '0.0001', description: 'below rent' });
    expect(small.status).toBe(422);
    expect(small.body.details).toMatch(/rent-exempt/);

    const sol = await withdraw(v.vaultId, { recipientAddress: to, amount: '0.25', description: 'SOL' });
    expect(sol.status, JSON.stringify(sol.body)).toBe(200);
    expect((await confirmed(v.vaultId, sol.body.operationID)).status).toBe('CONFIRMED');
    expect(lamports(to)).toBe(250_000_000n);

    const before = lamports(v.address);
    const first = await withdraw(v.vaultId, { recipientAddress: to, asset: 'USDC', amount: '12.5', description: 'USDC, new token account' });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect((await confirmed(v.vaultId, first.body.operationID)).status).toBe('CONFIRMED');
    expect(await usdc(to)).toBe(12_500_000n);
    // The vault paid the signature fee and the new token account's rent.
    const rent = node.svm.minimumBalanceForRentExemption(165n);
    expect(before - lamports(v.address)).toBe(5_000n + rent);

    const second = await withdraw(v.vaultId, { recipientAddress: to, asset: 'USDC', amount: '0.5', description: 'USDC, existing token account' });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    expect((await confirmed(v.vaultId, second.body.operationID)).status).toBe('CONFIRMED');
    expect(await usdc(to)).toBe(13_000_000n);
  });

  it('the setup survives other transactions landing while the quorum approves (its blockhash stays valid 150 slots)', async () => {
    const v = await loop.vault('solanadev');
    await node.fund(v.address, 'SOL', SOL);
    loop.custody.control.setFaults({ delayMs: 1500 }, v.vaultId);
    const setup = await withdraw(v.vaultId, { recipientAddress: await nonceAccountAddress(v.address), amount: '0.0015', description: 'nonce account' });
    expect(setup.status, JSON.stringify(setup.body)).toBe(200);
    for (let i = 0; i < 5; i++) await node.fund(await freshAddress(), 'SOL', 10_000_000n);
    const done = await confirmed(v.vaultId, setup.body.operationID);
    expect(done.status, JSON.stringify(done)).toBe('CONFIRMED');
  });

  it('two withdrawals from one vault at once: one holds the nonce, the other is refused with 409 and succeeds after', async () => {
    const v = await readyVault();
    const to = await freshAddress();
    const [a, b] = await Promise.all([
      withdraw(v.vaultId, { recipientAddress: to, amount: '0.1', description: 'first' }),
      withdraw(v.vaultId, { recipientAddress: to, amount: '0.2', description: 'second' }),
    ]);
    const statuses = [a.status, b.status].sort();
    expect(statuses).toEqual([200, 409]);
    const [won, lost] = a.status === 200 ? [a, b] : [b, a];
    expect(lost.body.errCode).toBe('ERR_NONCE_IN_USE');
    expect((await confirmed(v.vaultId, won.body.operationID)).status).toBe('CONFIRMED');
    const retry = await withdraw(v.vaultId, { recipientAddress: to, amount: '0.2', description: 'second, retried' });
    expect(retry.status, JSON.stringify(retry.body)).toBe(200);
    expect((await confirmed(v.vaultId, retry.body.operationID)).status).toBe('CONFIRMED');
    expect(lamports(to)).toBe(a.status === 200 ? 300_000_000n : 400_000_000n);
  });
});
