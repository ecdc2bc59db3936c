import { getTransactionEncoder, lamports, type Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { associatedTokenAccount } from '../logic/accounts.js';
import { startLocalSolanaNode, type LocalSolanaNode } from './index.js';
import { newLocalKey, signedTransaction } from './keys.js';

interface Answer<T> {
  result?: T;
  error?: { code: number; message: string };
}

/** The local node's getBlock and getBlocks, against what Agave answers. */
describe('local Solana node: blocks as Agave serves them', () => {
  let node: LocalSolanaNode;
  beforeAll(async () => {
    node = await startLocalSolanaNode({ slotMs: 0 });
  });
  afterAll(() => node.stop());

  const call = async <T>(method: string, params: unknown[] = []): Promise<Answer<T>> => {
    const res = await fetch(node.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
    });
    return (await res.json()) as Answer<T>;
  };
  const result = async <T>(method: string, params: unknown[] = []): Promise<T> => {
    const a = await call<T>(method, params);
    if (a.error) throw new Error(`${method}: ${a.error.message} (${a.error.code})`);
    return a.result as T;
  };
  const FULL = { encoding: 'json', transactionDetails: 'full', maxSupportedTransactionVersion: 0, rewards: false, commitment: 'finalized' };
  interface Block {
    blockhash: string;
    previousBlockhash: string;
    parentSlot: number;
    blockHeight: number;
    blockTime: number;
    transactions: {
      version: number | string;
      transaction: { signatures: string[]; message: { accountKeys: string[]; recentBlockhash: string; header: unknown } };
      meta: {
        err: unknown;
        status: unknown;
        fee: number;
        preBalances: number[];
        postBalances: number[];
        preTokenBalances: unknown[];
        postTokenBalances: { accountIndex: number; mint: string; owner: string; programId: string; uiTokenAmount: unknown }[];
      };
    }[];
  }
  const send = async (tx: ReturnType<typeof signedTransaction>, config: object = {}) =>
    result<string>('sendTransaction', [Buffer.from(getTransactionEncoder().encode(tx)).toString('base64'), { encoding: 'base64', ...config }]);

  it('a sent transaction is in the block of the slot it landed at, with its balances, fee and parent', async () => {
    const payer = newLocalKey();
    const to = newLocalKey().address;
    node.svm.airdrop(payer.address, lamports(1_000_000_000n));
    const parentSlot = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    const parent = await result<Block>('getBlock', [parentSlot, FULL]);
    const latest = await result<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment: 'finalized' }]);
    // The latest blockhash is the blockhash of the node's latest block, as a bank's is.
    expect(latest.value.blockhash).toBe(parent.blockhash);
    const sig = await send(
      signedTransaction([payer], latest.value.blockhash, [
        getTransferSolInstruction({ source: payer.signer, destination: to as Address, amount: 10_000_000n }),
      ]),
    );
    const slot = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    expect(slot).toBe(parentSlot + 1);
    expect(await result<number>('getBlockHeight', [{ commitment: 'finalized' }])).toBe(parent.blockHeight + 1);
    const block = await result<Block>('getBlock', [slot, FULL]);
    expect(block).toMatchObject({ parentSlot, previousBlockhash: parent.blockhash, blockHeight: parent.blockHeight + 1, blockTime: expect.any(Number) });
    expect(block).not.toHaveProperty('rewards');
    expect(block.transactions).toHaveLength(1);
    const [t] = block.transactions;
    expect(t).toMatchObject({
      version: 0,
      transaction: { signatures: [sig], message: { accountKeys: [payer.address, to, '11111111111111111111111111111111'], recentBlockhash: parent.blockhash } },
      meta: {
        err: null,
        status: { Ok: null },
        fee: 5000,
        preBalances: [1_000_000_000, 0, 1],
        postBalances: [1_000_000_000 - 10_000_000 - 5000, 10_000_000, 1],
      },
    });
    expect(await result<{ value: unknown[] }>('getSignatureStatuses', [[sig]])).toMatchObject({ value: [{ slot, err: null }] });
    expect(await result<{ blockhash: string }>('getBlock', [slot, { ...FULL, transactionDetails: 'none' }])).toEqual({
      blockHeight: block.blockHeight,
      blockTime: block.blockTime,
      blockhash: block.blockhash,
      parentSlot,
      previousBlockhash: parent.blockhash,
    });
    expect(await result<{ signatures: string[] }>('getBlock', [slot, { ...FULL, transactionDetails: 'signatures' }])).toMatchObject({ signatures: [sig] });
  });

  it('shows token balances before and after, with owner, mint and program', async () => {
    const owner = newLocalKey().address;
    const sig = await node.fund(owner, 'USDC', 1_500_000n);
    const slot = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    const [t] = (await result<Block>('getBlock', [slot, FULL])).transactions;
    expect(t?.transaction.signatures).toEqual([sig]);
    const ata = await associatedTokenAccount(owner, node.usdc.mint);
    const index = t!.transaction.message.accountKeys.indexOf(ata);
    expect(t?.meta.preTokenBalances).toEqual([]);
    expect(t?.meta.postTokenBalances).toEqual([
      {
        accountIndex: index,
        mint: node.usdc.mint,
        owner,
        programId: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
        uiTokenAmount: { amount: '1500000', decimals: 6, uiAmount: 1.5, uiAmountString: '1.5' },
      },
    ]);
  });

  it('a transaction sent without preflight that fails after its fee lands with its error; one refused before is in no block', async () => {
    const payer = newLocalKey();
    node.svm.airdrop(payer.address, lamports(10_000_000n));
    const tx = signedTransaction([payer], node.svm.latestBlockhash(), [
      getTransferSolInstruction({ source: payer.signer, destination: newLocalKey().address as Address, amount: 50_000_000n }),
    ]);
    // With preflight it is refused and never runs.
    expect((await call('sendTransaction', [Buffer.from(getTransactionEncoder().encode(tx)).toString('base64'), { encoding: 'base64' }])).error?.code).toBe(
      -32002,
    );
    const sig = await send(tx, { skipPreflight: true });
    const slot = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    const [t] = (await result<Block>('getBlock', [slot, FULL])).transactions;
    const err = { InstructionError: [0, { Custom: 1 }] };
    expect(t).toMatchObject({
      transaction: { signatures: [sig] },
      meta: { err, status: { Err: err }, fee: 5000, preBalances: [10_000_000, 0, 1], postBalances: [9_995_000, 0, 1] },
    });
    expect(await result<{ value: unknown[] }>('getSignatureStatuses', [[sig]])).toMatchObject({ value: [{ slot, err }] });
    // A payer without any lamports is charged nothing: the leader drops it, no block is made.
    const broke = newLocalKey();
    const dropped = signedTransaction([broke], node.svm.latestBlockhash(), [
      getTransferSolInstruction({ source: broke.signer, destination: newLocalKey().address as Address, amount: 1n }),
    ]);
    const sig2 = await send(dropped, { skipPreflight: true });
    expect(await result<number>('getSlot', [{ commitment: 'finalized' }])).toBe(slot);
    expect(await result<{ value: unknown[] }>('getSignatureStatuses', [[sig2]])).toMatchObject({ value: [null] });
  });

  it('answers a skipped slot and one not reached as Agave does; getBlocks lists the slots with a block', async () => {
    const from = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    const height = await result<number>('getBlockHeight', [{ commitment: 'finalized' }]);
    node.facade.skipSlots(2);
    node.facade.nextSlot();
    const slot = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    expect(slot).toBe(from + 3);
    // Skipped slots make no blocks: the block height moves by one.
    expect(await result<number>('getBlockHeight', [{ commitment: 'finalized' }])).toBe(height + 1);
    expect(await result<Block>('getBlock', [slot, FULL])).toMatchObject({
      parentSlot: from,
      previousBlockhash: (await result<Block>('getBlock', [from, FULL])).blockhash,
    });
    expect(await call('getBlock', [from + 1, FULL])).toMatchObject({
      error: { code: -32007, message: `Slot ${from + 1} was skipped, or missing due to ledger jump to recent snapshot` },
    });
    expect(await call('getBlock', [slot + 1, FULL])).toMatchObject({ error: { code: -32004, message: `Block not available for slot ${slot + 1}` } });
    // Before the node's first block: cleaned up, as a node started from a snapshot answers.
    const [first] = await result<number[]>('getBlocks', [slot - 1_000, slot, { commitment: 'finalized' }]);
    expect(await call('getBlock', [first! - 1, FULL])).toMatchObject({
      error: { code: -32001, message: `Block ${first! - 1} cleaned up, does not exist on node. First available block: ${first}` },
    });
    expect(await result<number[]>('getBlocks', [from, slot + 10, { commitment: 'finalized' }])).toEqual([from, slot]);
    expect(await result<number[]>('getBlocks', [from, { commitment: 'confirmed' }])).toEqual([from, slot]);
  });

  it('refuses what Agave refuses, and unknown config keys', async () => {
    const slot = await result<number>('getSlot', [{ commitment: 'finalized' }]);
    const transfer = await node.fund(newLocalKey().address, 'SOL', 2_000_000n);
    expect(transfer).toBeTruthy();
    const landed = slot + 1;
    // A v0 transaction to a client that did not say it reads them.
    expect(await call('getBlock', [landed, { encoding: 'json' }])).toMatchObject({
      error: {
        code: -32015,
        message:
          'Transaction version (0) is not supported by the requesting client. Please try the request again with the following configuration parameter: "maxSupportedTransactionVersion": 0',
      },
    });
    expect(await call('getBlock', [landed, { ...FULL, commitment: 'processed' }])).toMatchObject({
      error: { code: -32602, message: 'Method does not support commitment below `confirmed`' },
    });
    expect(await call('getBlocks', [0, landed, { commitment: 'processed' }])).toMatchObject({ error: { code: -32602 } });
    expect(await call('getBlock', [landed, { ...FULL, transactionDetail: 'full' }])).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/unknown field `transactionDetail`/) },
    });
    expect(await call('getBlock', [landed, { ...FULL, encoding: 'xml' }])).toMatchObject({
      error: { code: -32602, message: expect.stringMatching(/unknown variant `xml`/) },
    });
    expect(await call('getBlock', ['1', FULL])).toMatchObject({ error: { code: -32602 } });
    // With rewards (the default) the block and each meta carry an empty list: LiteSVM pays none.
    expect(
      await result<{ rewards: unknown[]; transactions: { meta: { rewards: unknown[] } }[] }>('getBlock', [landed, { maxSupportedTransactionVersion: 0 }]),
    ).toMatchObject({
      rewards: [],
      transactions: [{ meta: { rewards: [] } }],
    });
  });
});
