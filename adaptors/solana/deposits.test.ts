import { getAddressEncoder, getTransactionEncoder, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDepositEntry, type DepositEvent } from '../../src/deposits/deposit-events.js';
import { DepositStore } from '../../src/deposits/deposit-store.js';
import { LedgerScanner } from '../../src/deposits/scan-ledger.js';
import type { LedgerAdaptor } from '../../src/ledger/adaptor.js';
import { VaultStore } from '../../src/vaults/vault-store.js';
import { ed25519Signer } from '../../test/conformance/signers.js';
import { testRedis } from '../../test/helpers/redis.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './local-node/index.js';
import { newLocalKey, signedTransaction } from './local-node/keys.js';
import { LocalMint } from './local-node/mint.js';
import { associatedTokenAccount } from './logic/accounts.js';
import { LAMPORTS_PER_SIGNATURE } from './logic/fees.js';
import { SolanaRpc } from './network/rpc.js';
import { localAdaptor, setUpNonce, signWith, vaultOf } from './test-kit.js';

/**
 * Deposits on LiteSVM behind the JSON-RPC facade: the family's deposit source reads each slot's
 * block with getBlock and finds SOL and SPL tokens arriving from the transactions' balances; the
 * scanner keeps what reaches a vault. The vault's own transactions, failed transactions and
 * skipped slots are covered too.
 */
describe('Solana deposits on LiteSVM', () => {
  let node: LocalSolanaNode;
  let adaptor: LedgerAdaptor;
  let other: LocalMint;
  const { redis, prefix } = testRedis();
  const store = new DepositStore(redis, prefix);
  const vaults = new VaultStore(redis, prefix);
  let scanner: LedgerScanner;
  const scan = () => scanner.pass({ maxBlocks: 10_000, deadline: Date.now() + 60_000 });
  const events = async (): Promise<DepositEvent[]> => (await redis.xrange(store.keys.outbox, '-', '+')).map(([, f]) => parseDepositEntry(f));
  const detected = async () => (await events()).filter((e) => e.type === 'deposit.detected').map((e) => e.deposit);
  type TestSigner = ReturnType<typeof ed25519Signer>;
  const signers = Array.from({ length: 5 }, () => ed25519Signer());
  const addressOf = (s: TestSigner) => adaptor.addressFromPublicKey(s.publicKey);
  const [a, b] = signers as [TestSigner, TestSigner];

  beforeAll(async () => {
    node = await startLocalSolanaNode({ slotMs: 0 });
    adaptor = localAdaptor(node, redis, prefix);
    other = LocalMint.create(node.svm, node.facade, 9);
    for (const [i, s] of signers.entries())
      await vaults.create({
        vaultId: `sol-${i}`,
        ledgerId: 'solanadev',
        kind: 'single',
        publicKey: Buffer.from(s.publicKey.bytes).toString('hex'),
        createdAt: '',
      });
    scanner = new LedgerScanner(
      adaptor,
      adaptor.depositSource!,
      { store, vaults, logger: pino({ level: 'silent' }) },
      { window: 50, gapLimit: 20, refreshMs: 60_000 },
    );
    // The first pass starts the cursor after the tip.
    await scan();
  }, 60_000);
  afterAll(async () => {
    redis.disconnect();
    await node?.stop();
  });

  it('finds SOL, a configured token in the associated token account and an unconfigured mint, at many vaults', async () => {
    const before = (await detected()).length;
    const sol = await node.fund(addressOf(a), 'SOL', 2_000_000_000n);
    const usdc = await node.fund(addressOf(a), 'USDC', 100_000_000n);
    const unknown = await other.mintTo(addressOf(a), 7n);
    const many = [];
    for (const s of signers.slice(1)) many.push(await node.fund(addressOf(s), 'SOL', 1_000_000_000n));
    await scan();
    const seen = (await detected()).slice(before);
    const ata = await associatedTokenAccount(addressOf(a), node.usdc.mint);
    expect(seen.map((d) => [d.txid, d.vaultId, d.asset, d.baseUnits, d.amount, d.credited])).toEqual([
      [sol, 'sol-0', 'SOL', '2000000000', '2', true],
      [usdc, 'sol-0', 'USDC', '100000000', '100', true],
      [unknown, 'sol-0', other.address, '7', '7', false],
      ...many.map((txid, i) => [txid, `sol-${i + 1}`, 'SOL', '1000000000', '1', true]),
    ]);
    expect(seen[1]).toMatchObject({ address: addressOf(a), account: ata, index: expect.stringMatching(/^spl:\d+$/) });
    expect(seen[0]).toMatchObject({ address: addressOf(a), index: 'sol:1' });
    expect(seen[0]?.account).toBeUndefined();
    // The faucet key paid: it is the fee payer and its lamports went down.
    expect(seen[0]?.from).toHaveLength(1);
    expect(seen[0]?.from).not.toContain(addressOf(a));
    // One confirmation, read at `finalized`: confirmed at once.
    const confirmed = (await events()).filter((e) => e.type === 'deposit.confirmed').map((e) => e.deposit.txid);
    expect(confirmed).toEqual(expect.arrayContaining([sol, usdc, unknown, ...many]));
  });

  it("leaves out the vault's own transactions (its nonce account, its withdrawals) and reports a payment between vaults on the receiving side", async () => {
    const before = (await detected()).length;
    await setUpNonce(adaptor, b, (to, l) => node.fund(to, 'SOL', l), node.svm.minimumBalanceForRentExemption(80n));
    await node.fund(addressOf(b), 'USDC', 3_000_000n);
    await scan();
    const setupDeposits = (await detected()).slice(before);
    // The nonce setup's funding and the USDC are deposits; the setup itself (the vault paying its nonce account) is none.
    expect(setupDeposits.map((d) => [d.vaultId, d.asset])).toEqual([
      ['sol-1', 'SOL'],
      ['sol-1', 'USDC'],
    ]);
    // Vault b (it holds 1 SOL from the test above) pays a, through the adaptor, each on its durable nonce.
    const source = vaultOf(adaptor, b, 'sol-1');
    const sol = await adaptor.craft(source, {
      reference: 'b-to-a',
      recipientAddress: addressOf(a),
      asset: adaptor.nativeAsset,
      amount: 10_000_000n,
      fee: 'LOW',
    });
    const solTx = signWith(adaptor, b, sol);
    await adaptor.broadcast(solTx);
    const usdc = adaptor.assets().find((x) => x.symbol === 'USDC')!;
    const tok = await adaptor.craft(source, { reference: 'b-to-a-usdc', recipientAddress: addressOf(a), asset: usdc, amount: 1_000_000n, fee: 'LOW' });
    const tokTx = signWith(adaptor, b, tok);
    await adaptor.broadcast(tokTx);
    await scan();
    const seen = (await detected()).slice(before + 2);
    expect(seen.map((d) => [d.txid, d.vaultId, d.asset, d.baseUnits])).toEqual([
      [solTx.txid, 'sol-0', 'SOL', '10000000'],
      [tokTx.txid, 'sol-0', 'USDC', '1000000'],
    ]);
    expect(seen.every((d) => d.from.includes(addressOf(b)))).toBe(true);
  });

  it('a transaction the vault pays for is its own even where value arrives at it: reported with the vault among its senders, no deposit', async () => {
    const own = newLocalKey();
    const helper = newLocalKey();
    await vaults.create({
      vaultId: 'sol-own',
      ledgerId: 'solanadev',
      kind: 'single',
      publicKey: Buffer.from(getAddressEncoder().encode(own.address)).toString('hex'),
      createdAt: '',
    });
    const funding = await node.fund(own.address, 'SOL', 10_000_000n);
    await node.fund(helper.address, 'SOL', 50_000_000n);
    await scan();
    const before = (await detected()).length;
    // The vault pays the fee; the helper's lamports arrive at the vault.
    const tx = signedTransaction([own, helper], node.svm.latestBlockhash(), [
      getTransferSolInstruction({ source: helper.signer, destination: own.address, amount: 20_000_000n }),
    ]);
    const sig = await new SolanaRpc(node.url, fetch).sendTransaction(Buffer.from(getTransactionEncoder().encode(tx)).toString('base64'));
    const slot = (await store.cursor('solanadev'))!.height;
    await scan();
    const seen = (await detected()).slice(before);
    expect(seen.map((d) => d.txid)).toEqual([]);
    expect((await detected()).find((d) => d.txid === funding)?.vaultId).toBe('sol-own');
    // The source reports it; the scanner leaves it out because the vault is among its senders.
    const blocks = await Promise.all(
      Array.from({ length: (await store.cursor('solanadev'))!.height - slot }, (_, i) => adaptor.depositSource!.block(slot + 1 + i)),
    );
    const transfer = blocks.flatMap((b) => b?.transfers ?? []).find((t) => t.txid === sig);
    expect(transfer).toMatchObject({ to: own.address, amount: 20_000_000n, from: [own.address, helper.address] });
  });

  it('keeps the memo a payment carries (the Memo program), as exchanges route by it', async () => {
    const payer = newLocalKey();
    await node.fund(payer.address, 'SOL', 50_000_000n);
    await scan();
    const before = (await detected()).length;
    const memo = { programAddress: 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr' as Address, accounts: [], data: new TextEncoder().encode('invoice-42') };
    const tx = signedTransaction([payer], node.svm.latestBlockhash(), [
      getTransferSolInstruction({ source: payer.signer, destination: addressOf(a) as Address, amount: 3_000_000n }),
      memo,
    ]);
    const sig = await new SolanaRpc(node.url, fetch).sendTransaction(Buffer.from(getTransactionEncoder().encode(tx)).toString('base64'));
    await scan();
    expect((await detected()).slice(before).map((d) => [d.txid, d.vaultId, d.baseUnits, d.memo])).toEqual([[sig, 'sol-0', '3000000', 'invoice-42']]);
  });

  it('ignores a failed transaction that landed (its fee charged, nothing moved)', async () => {
    const payer = newLocalKey();
    await node.fund(payer.address, 'SOL', 10_000_000n);
    const tx = signedTransaction([payer], node.svm.latestBlockhash(), [
      getTransferSolInstruction({ source: payer.signer, destination: addressOf(a) as Address, amount: 50_000_000n }),
    ]);
    const res = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'sendTransaction',
        params: [Buffer.from(getTransactionEncoder().encode(tx)).toString('base64'), { encoding: 'base64', skipPreflight: true }],
      }),
    });
    const sig = ((await res.json()) as { result: string }).result;
    expect(node.svm.getBalance(payer.address)).toBe(10_000_000n - LAMPORTS_PER_SIGNATURE);
    const before = (await detected()).length;
    const paid = await node.fund(addressOf(a), 'SOL', 1_000_000n);
    await scan();
    const seen = (await detected()).slice(before);
    expect(seen.map((d) => d.txid)).toEqual([paid]);
    expect(seen.map((d) => d.txid)).not.toContain(sig);
  });

  it('scans across skipped slots: their blocks carry the hash of the block before, and the next block builds on it', async () => {
    const cursor = (await store.cursor('solanadev'))!;
    node.facade.skipSlots(3);
    const before = (await detected()).length;
    const paid = await node.fund(addressOf(a), 'SOL', 5_000_000n);
    const result = await scan();
    expect(result).toMatchObject({ caughtUp: true });
    expect(result.waiting).toBeUndefined();
    expect((await detected()).slice(before).map((d) => d.txid)).toEqual([paid]);
    const after = (await store.cursor('solanadev'))!;
    expect(after.height).toBe(cursor.height + 4);
    const source = adaptor.depositSource!;
    for (let slot = cursor.height + 1; slot <= cursor.height + 3; slot++)
      expect(await source.block(slot)).toMatchObject({ height: slot, hash: cursor.hash, parentHash: cursor.hash, transfers: [] });
    expect(await source.block(after.height)).toMatchObject({ parentHash: cursor.hash });
    expect(await source.block(after.height + 1)).toBeUndefined();
  });
});
