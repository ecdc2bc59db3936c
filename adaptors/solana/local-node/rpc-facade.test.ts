import { getTransactionEncoder, lamports, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { solanaFamily } from '../index.js';
import { AlreadyProcessedError } from '../network/errors.js';
import { SolanaRpc } from '../network/rpc.js';
import { startSolanaLocalNode } from './hook.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './index.js';
import { newLocalKey, signedTransaction } from './keys.js';

const b64 = (tx: Parameters<ReturnType<typeof getTransactionEncoder>['encode']>[0]) => Buffer.from(getTransactionEncoder().encode(tx)).toString('base64');

describe('local Solana node: LiteSVM behind a strict JSON-RPC facade', () => {
  let node: LocalSolanaNode;
  let rpc: SolanaRpc;
  beforeAll(async () => {
    node = await startLocalSolanaNode({ slotMs: 0 });
    rpc = new SolanaRpc(node.url, fetch);
  });
  afterAll(() => node.stop());

  const transfer = (from: ReturnType<typeof newLocalKey>, to: string, amount: bigint) =>
    signedTransaction([from], node.svm.latestBlockhash(), [getTransferSolInstruction({ source: from.signer, destination: to as Address, amount })]);

  it('executes a real transfer, reports it, and refuses it a second time as already processed', async () => {
    const payer = newLocalKey();
    const to = newLocalKey().address;
    node.svm.airdrop(payer.address, lamports(1_000_000_000n));
    const tx = transfer(payer, to, 10_000_000n);
    const requests = node.facade.sendRequests.length;
    const slot = await rpc.getSlot('confirmed');
    const sig = await rpc.sendTransaction(b64(tx));
    expect(await rpc.getSlot('confirmed')).toBe(slot + 1);
    expect(await rpc.getSignatureStatus(sig)).toMatchObject({ err: null, confirmationStatus: 'processed' });
    const [payerAcc, toAcc] = await rpc.getMultipleAccounts([payer.address, to]);
    expect(BigInt(toAcc!.lamports)).toBe(10_000_000n);
    expect(BigInt(payerAcc!.lamports)).toBe(1_000_000_000n - 10_000_000n - 5_000n);
    await expect(rpc.sendTransaction(b64(tx))).rejects.toBeInstanceOf(AlreadyProcessedError);
    // Both requests are on the facade's record; the transaction executed once.
    expect(node.facade.sendRequests.slice(requests)).toEqual([sig, sig]);
    expect(node.facade.executed().filter((s) => s === sig)).toEqual([sig]);
  });

  it('checks signatures and rent for real, and a refused transaction never lands', async () => {
    const payer = newLocalKey();
    node.svm.airdrop(payer.address, lamports(1_000_000_000n));
    const tx = transfer(payer, newLocalKey().address, 1_000n);
    // Below the rent-exempt minimum of a new account: the System program refuses it.
    await expect(rpc.sendTransaction(b64(tx))).rejects.toThrow(/InsufficientFundsForRent/);
    const good = transfer(payer, newLocalKey().address, 5_000_000n);
    const forged = { ...good, signatures: { [payer.address]: new Uint8Array(64).fill(7) } } as typeof good;
    await expect(rpc.sendTransaction(b64(forged))).rejects.toThrow(/simulation failed/i);
    expect(await rpc.getSignatureStatus('1111111111111111111111111111111111111111111111111111111111111111')).toBeNull();
    const [acc] = await rpc.getMultipleAccounts([payer.address]);
    expect(BigInt(acc!.lamports)).toBe(1_000_000_000n);
  });

  it('accepts a blockhash of the last 150 slots, as the runtime does, and no other', async () => {
    const payer = newLocalKey();
    node.svm.airdrop(payer.address, lamports(1_000_000_000n));
    const early = transfer(payer, newLocalKey().address, 10_000_000n);
    const late = transfer(payer, newLocalKey().address, 20_000_000n);
    // Other transactions move the node on by a slot and a blockhash each.
    for (let i = 0; i < 3; i++) await node.fund(newLocalKey().address, 'SOL', 10_000_000n);
    expect(await rpc.sendTransaction(b64(early))).toMatch(/^[1-9A-HJ-NP-Za-km-z]{64,88}$/);
    for (let i = 0; i < 150; i++) node.facade.nextSlot();
    await expect(rpc.sendTransaction(b64(late))).rejects.toThrow(/BlockhashNotFound/);
    const unknown = signedTransaction([payer], '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM', [
      getTransferSolInstruction({ source: payer.signer, destination: newLocalKey().address as Address, amount: 1n }),
    ]);
    await expect(rpc.sendTransaction(b64(unknown))).rejects.toThrow(/BlockhashNotFound/);
  });

  it('answers with the slot it is at: context.slot, getEpochInfo (slot and height of one bank), isBlockhashValid for 150 slots', async () => {
    const payer = newLocalKey();
    node.svm.airdrop(payer.address, lamports(1_000_000_000n));
    const blockhash = node.svm.latestBlockhash();
    const sig = await rpc.sendTransaction(b64(transfer(payer, newLocalKey().address, 10_000_000n)));
    const slot = await rpc.getSlot('confirmed');
    // It landed in the block the send closed: the slot the node is at.
    expect(await rpc.getSignatureStatusAt(sig)).toMatchObject({ slot, value: { slot } });
    expect(await rpc.getAccountAt(payer.address)).toMatchObject({ slot, value: { owner: '11111111111111111111111111111111' } });
    expect(await rpc.getEpochInfo()).toEqual({ absoluteSlot: slot, blockHeight: slot });
    const info = await rpc.call<{ epoch: number; slotIndex: number; slotsInEpoch: number }>('getEpochInfo');
    expect(info.slotIndex).toBeLessThan(info.slotsInEpoch);
    expect(await rpc.isBlockhashValid(blockhash)).toEqual({ slot, value: true });
    for (let i = 0; i < 150; i++) node.facade.nextSlot();
    expect(await rpc.isBlockhashValid(blockhash)).toEqual({ slot: slot + 150, value: false });
    expect((await rpc.isBlockhashValid('4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM')).value).toBe(false);
  });

  it('says plainly what it does not serve, and rejects malformed parameters', async () => {
    await expect(rpc.getGenesisHash()).rejects.toThrow(/Method not found: getGenesisHash is not served by the local LiteSVM node/);
    await expect(rpc.call('getMultipleAccounts', [['not-an-address']])).rejects.toThrow(/not a base58 public key/);
    await expect(rpc.call('sendTransaction', ['AAAA', { encoding: 'base58' }])).rejects.toThrow(/base64-encoded transactions only/);
    expect(await rpc.getRecentPrioritizationFees([])).toEqual([]);
  });

  it('the family hook gives options its schema accepts and a faucet that funds SOL and USDC only', async () => {
    const local = await startSolanaLocalNode();
    try {
      expect(local.ledgerId).toBe('solanadev');
      const options = solanaFamily.optionsSchema.parse(local.options);
      const to = newLocalKey().address;
      await local.faucet(to, 'SOL', 2_000_000n);
      await local.faucet(to, 'USDC', 1_500_000n);
      await expect(local.faucet(to, 'BONK', 1n)).rejects.toThrow(/SOL and USDC, not BONK/);
      const balances = await solanaFamily.create('solanadev', options, { fetch } as never).getBalances(
        [to],
        [
          { symbol: 'SOL', decimals: 9, native: true },
          { symbol: 'USDC', decimals: 6, native: false, contract: options.tokens[0]!.mint },
        ],
      );
      expect(balances.map((b) => b.amount)).toEqual([2_000_000n, 1_500_000n]);
    } finally {
      await local.stop();
    }
  });
});
