import { getAddressDecoder } from '@solana/kit';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConflictError, InvalidArgumentError } from '../../src/platform/errors.js';
import type { LedgerAdaptor, VaultSource } from '../../src/ledger/adaptor.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { readNonceAccount } from './logic/accounts.js';
import { nonceAccountAddress } from './logic/nonce.js';
import { SolanaRpc } from './network/rpc.js';
import { localAdaptor, signWith, vaultOf } from './test-kit.js';

describe('durable nonce setup when SOL reached the nonce address first', () => {
  let node: LocalSolanaNode;
  let adaptor: LedgerAdaptor;
  let rpc: SolanaRpc;
  let rent: bigint;
  const { redis, prefix } = testRedis();

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    rpc = new SolanaRpc(node.url, fetch);
    adaptor = localAdaptor(node, redis, prefix);
    rent = node.svm.minimumBalanceForRentExemption(80n);
  });
  afterAll(async () => {
    redis.disconnect();
    await node.stop();
  });

  const lamports = (a: string) => node.svm.getBalance(a as never) ?? 0n;
  const send = (source: VaultSource, recipientAddress: string, amount: bigint, reference: string) =>
    adaptor.craft(source, { reference, recipientAddress, asset: adaptor.nativeAsset, amount, fee: 'LOW' });
  const fundedVault = async () => {
    const signer = ed25519Signer();
    const source = vaultOf(adaptor, signer);
    await node.fund(source.changeAddress, 'SOL', 1_000_000_000n);
    return { signer, source, nonce: await nonceAccountAddress(source.changeAddress) };
  };

  it('a nonce address someone paid is taken over by the setup (topped up to its rent-exempt minimum), and transfers follow', async () => {
    const { signer, source, nonce } = await fundedVault();
    await node.fund(nonce, 'SOL', 1_000_000n);
    const missing = rent - 1_000_000n;

    const early = await send(source, getAddressDecoder().decode(ed25519Signer().publicKey.bytes), 100_000_000n, 'early').catch((e: unknown) => e);
    expect(early).toBeInstanceOf(ConflictError);
    expect((early as ConflictError).errCode).toBe('ERR_NONCE_ACCOUNT_MISSING');
    expect((early as ConflictError).details).toContain(nonce);
    expect((early as ConflictError).fields).toEqual({ nonceAddress: nonce, minimum: missing.toString() });
    const short = await send(source, nonce, missing - 1n, 'short').catch((e: unknown) => e);
    expect(short).toBeInstanceOf(InvalidArgumentError);
    expect((short as InvalidArgumentError).fields).toEqual({ minimum: missing.toString() });

    const setup = await send(source, nonce, missing, 'setup');
    const signedSetup = signWith(adaptor, signer, setup);
    await adaptor.broadcast(signedSetup);
    node.facade.root();
    expect(await adaptor.txStatus(signedSetup.txid, setup)).toMatchObject({ state: 'confirmed' });
    const [acc] = await rpc.getMultipleAccounts([nonce]);
    expect(readNonceAccount(acc!, nonce).authority).toBe(source.changeAddress);
    expect(lamports(nonce)).toBe(rent);

    const to = getAddressDecoder().decode(ed25519Signer().publicKey.bytes);
    const transfer = await send(source, to, 100_000_000n, 'transfer');
    const signed = signWith(adaptor, signer, transfer);
    await adaptor.broadcast(signed);
    node.facade.root();
    expect(await adaptor.txStatus(signed.txid, transfer)).toMatchObject({ state: 'confirmed' });
    expect(lamports(to)).toBe(100_000_000n);
  });

  it('a setup crafted for an empty nonce address still lands when SOL reaches that address before it is sent', async () => {
    const { signer, source, nonce } = await fundedVault();
    const setup = await send(source, nonce, rent, 'setup');
    await node.fund(nonce, 'SOL', 2_000_000n);
    const signed = signWith(adaptor, signer, setup);
    await adaptor.broadcast(signed);
    node.facade.root();
    expect(await adaptor.txStatus(signed.txid, setup)).toMatchObject({ state: 'confirmed' });
    const [acc] = await rpc.getMultipleAccounts([nonce]);
    expect(readNonceAccount(acc!, nonce).authority).toBe(source.changeAddress);
    expect(lamports(nonce)).toBe(rent + 2_000_000n);
  });
});
