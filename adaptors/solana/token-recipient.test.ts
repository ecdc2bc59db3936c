import { address, getAddressDecoder, getAddressEncoder, getProgramDerivedAddress } from '@solana/kit';
import { TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidArgumentError } from '../../src/platform/errors.js';
import type { LedgerAdaptor, VaultSource } from '../../src/ledger/adaptor.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { LocalMint } from './local-node/mint.js';
import { associatedTokenAccount } from './logic/accounts.js';
import { nonceAccountAddress } from './logic/nonce.js';
import { SolanaRpc } from './network/rpc.js';
import { decodeSolanaTx, localAdaptor, setUpNonce, signWith, vaultOf } from './test-kit.js';

describe('SPL withdrawals: where the tokens go for each kind of recipient address', () => {
  let node: LocalSolanaNode;
  let adaptor: LedgerAdaptor;
  let rpc: SolanaRpc;
  const { redis, prefix } = testRedis();

  beforeAll(async () => {
    node = await startLocalSolanaNode();
    rpc = new SolanaRpc(node.url, fetch);
    adaptor = localAdaptor(node, redis, prefix);
  });
  afterAll(async () => {
    redis.disconnect();
    await node.stop();
  });

  const usdc = () => adaptor.assets().find((a) => a.symbol === 'USDC')!;
  const freshOwner = () => getAddressDecoder().decode(ed25519Signer().publicKey.bytes);
  const unitsIn = async (tokenAccount: string) => {
    const [acc] = await rpc.getMultipleAccounts([tokenAccount]);
    return acc ? Buffer.from(acc.data[0], 'base64').readBigUInt64LE(64) : 0n;
  };
  /** A vault with its nonce account, SOL and 10 USDC. */
  const readyVault = async () => {
    const signer = ed25519Signer();
    const source = vaultOf(adaptor, signer);
    await setUpNonce(adaptor, signer, (a, l) => node.fund(a, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(source.changeAddress, 'SOL', 1_000_000_000n);
    await node.fund(source.changeAddress, 'USDC', 10_000_000n);
    return { signer, source };
  };
  const craftTo = (source: VaultSource, recipientAddress: string, reference: string) =>
    adaptor.craft(source, { reference, recipientAddress, asset: usdc(), amount: 5_000_000n, fee: 'LOW' });

  it('a USDC token account named as the recipient is paid directly, creating nothing', async () => {
    const { signer, source } = await readyVault();
    const owner = freshOwner();
    await node.fund(owner, 'USDC', 1n);
    const tokenAccount = await associatedTokenAccount(owner, node.usdc.mint);

    const unsigned = await craftTo(source, tokenAccount, 'to-token-account');
    expect(unsigned.fee).toBe(5_000n);
    const signed = signWith(adaptor, signer, unsigned);
    expect(decodeSolanaTx(signed)).toMatchObject({ createsTokenAccount: false, tokenTransfer: { destination: tokenAccount, amount: 5_000_000n } });
    await adaptor.broadcast(signed);
    expect(await unitsIn(tokenAccount)).toBe(5_000_001n);
    // Nothing went to an associated token account owned by the token account (nobody could sign for it).
    expect(await unitsIn(await associatedTokenAccount(tokenAccount, node.usdc.mint))).toBe(0n);
  });

  it("a token account of another mint, the vault's own token account, its nonce account, a mint and a program are refused (422, recipientAddress)", async () => {
    const { source } = await readyVault();
    const otherMint = LocalMint.create(node.svm, node.facade, 6);
    const owner = freshOwner();
    await otherMint.mintTo(owner, 1n);
    const refusals: Record<string, string> = {
      'token account of another mint': await associatedTokenAccount(owner, otherMint.address),
      "the vault's own USDC token account": await associatedTokenAccount(source.changeAddress, node.usdc.mint),
      "the vault's nonce account": await nonceAccountAddress(source.changeAddress),
      'a mint': node.usdc.mint,
      'a program': TOKEN_PROGRAM_ADDRESS,
    };
    for (const [what, recipient] of Object.entries(refusals)) {
      const err = await craftTo(source, recipient, `refused-${what}`).catch((e: unknown) => e);
      expect(err, what).toBeInstanceOf(InvalidArgumentError);
      expect((err as InvalidArgumentError).fields, what).toEqual({ field: 'recipientAddress' });
      expect((err as InvalidArgumentError).details, what).toContain(recipient);
    }
  });

  it('an owner off the ed25519 curve (a program-derived address) is refused unless the request consents, then gets its associated token account', async () => {
    const { signer, source } = await readyVault();
    const [pda] = await getProgramDerivedAddress({
      programAddress: TOKEN_PROGRAM_ADDRESS,
      seeds: ['byow-test', getAddressEncoder().encode(address(freshOwner()))],
    });
    const err = await craftTo(source, pda, 'pda-refused').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).fields).toEqual({ field: 'recipientAddress' });
    expect((err as InvalidArgumentError).details).toMatch(/off the ed25519 curve.*allowOffCurveRecipient/);

    const unsigned = await adaptor.craft(source, {
      reference: 'pda-allowed',
      recipientAddress: pda,
      asset: usdc(),
      amount: 5_000_000n,
      fee: 'LOW',
      allowOffCurveRecipient: true,
    });
    const signed = signWith(adaptor, signer, unsigned);
    expect(decodeSolanaTx(signed)).toMatchObject({ createsTokenAccount: true });
    await adaptor.broadcast(signed);
    expect(await unitsIn(await associatedTokenAccount(pda, node.usdc.mint))).toBe(5_000_000n);
  });

  it('a USDC token account whose owner is off the curve is refused unless the request consents', async () => {
    const { source } = await readyVault();
    const [pda] = await getProgramDerivedAddress({
      programAddress: TOKEN_PROGRAM_ADDRESS,
      seeds: ['byow-owner', getAddressEncoder().encode(address(freshOwner()))],
    });
    await node.fund(pda, 'USDC', 1n);
    const tokenAccount = await associatedTokenAccount(pda, node.usdc.mint);
    const err = await craftTo(source, tokenAccount, 'pda-owned-refused').catch((e: unknown) => e);
    expect(err).toBeInstanceOf(InvalidArgumentError);
    expect((err as InvalidArgumentError).details).toContain(`whose owner ${pda} is off the ed25519 curve`);
    const unsigned = await adaptor.craft(source, {
      reference: 'pda-owned-allowed',
      recipientAddress: tokenAccount,
      asset: usdc(),
      amount: 5_000_000n,
      fee: 'LOW',
      allowOffCurveRecipient: true,
    });
    await adaptor.release(unsigned, 'pda-owned-allowed');
  });
});
