import { describe, expect, it } from 'vitest';
import type { RpcBlock, RpcBlockTransaction, RpcTokenBalance } from '../network/rpc.js';
import { blockTransfers } from './block-transfers.js';

const TOKEN = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA';
const USDC = 'USDCmint1111111111111111111111111111111111';
const OTHER = 'OTHERmint111111111111111111111111111111111';
/** Stands for the PDA derivation: the owner's associated account is `ata:{owner}:{mint}`. */
const associatedAccount = (owner: string, mint: string) => Promise.resolve(`ata:${owner}:${mint}`);
const opts = { nativeSymbol: 'SOL', tokens: new Map([[USDC, 'USDC']]), associatedAccount };

const tb = (accountIndex: number, mint: string, owner: string, amount: string): RpcTokenBalance => ({
  accountIndex,
  mint,
  owner,
  programId: TOKEN,
  uiTokenAmount: { amount, decimals: 6 },
});

function tx(p: {
  sig: string;
  keys: string[];
  pre: number[];
  post: number[];
  fee?: number;
  err?: unknown;
  preTokens?: RpcTokenBalance[];
  postTokens?: RpcTokenBalance[];
  loaded?: { writable: string[]; readonly: string[] };
}): RpcBlockTransaction {
  return {
    transaction: { signatures: [p.sig], message: { accountKeys: p.keys, instructions: [] } },
    meta: {
      err: p.err ?? null,
      fee: p.fee ?? 5000,
      preBalances: p.pre,
      postBalances: p.post,
      preTokenBalances: p.preTokens ?? [],
      postTokenBalances: p.postTokens ?? [],
      ...(p.loaded ? { loadedAddresses: p.loaded } : {}),
    },
  };
}
const block = (...transactions: RpcBlockTransaction[]): RpcBlock => ({
  blockhash: 'h',
  previousBlockhash: 'p',
  parentSlot: 1,
  blockHeight: 1,
  blockTime: 1,
  transactions,
});

/** Transfers read from a block's balances, on blocks as Agave gives them (json encoding). */
describe('Solana block transfers from balances', () => {
  it('SOL: each account whose lamports went up, the fee payer counted before its fee; from is the payer and every account that went down', async () => {
    // payer pays 1,000 to A and a sponsor's 300 goes to B in one transaction; the payer also pays the fee.
    const out = await blockTransfers(
      block(
        tx({
          sig: 's1',
          keys: ['payer', 'A', 'sponsor', 'B', '11111111111111111111111111111111'],
          pre: [10_000, 0, 500, 7, 1],
          post: [4_000, 1_000, 200, 307, 1],
          fee: 5000,
        }),
      ),
      opts,
    );
    expect(out).toEqual([
      { txid: 's1', index: 'sol:1', to: 'A', asset: 'SOL', configured: true, amount: 1_000n, from: ['payer', 'sponsor'] },
      { txid: 's1', index: 'sol:3', to: 'B', asset: 'SOL', configured: true, amount: 300n, from: ['payer', 'sponsor'] },
    ]);
  });

  it("tokens: to the owner, credited only in the owner's associated account of a configured mint; from the owners that went down", async () => {
    const out = await blockTransfers(
      block(
        tx({
          sig: 's2',
          keys: ['payer', 'src', `ata:V:${USDC}`, 'plain', `ata:V:${OTHER}`],
          pre: [1, 1, 0, 1, 0],
          post: [1, 1, 1, 1, 1],
          fee: 0,
          preTokens: [tb(1, USDC, 'alice', '900'), tb(3, USDC, 'V', '5')],
          postTokens: [tb(1, USDC, 'alice', '0'), tb(2, USDC, 'V', '600'), tb(3, USDC, 'V', '305'), tb(4, OTHER, 'V', '9')],
        }),
      ),
      { ...opts, watching: (a) => a === 'V' },
    );
    expect(out).toEqual([
      { txid: 's2', index: 'spl:2', to: 'V', asset: 'USDC', configured: true, amount: 600n, from: ['payer', 'alice'], account: `ata:V:${USDC}` },
      { txid: 's2', index: 'spl:3', to: 'V', asset: USDC, configured: false, amount: 300n, from: ['payer', 'alice'], account: 'plain' },
      { txid: 's2', index: 'spl:4', to: 'V', asset: OTHER, configured: false, amount: 9n, from: ['payer'], account: `ata:V:${OTHER}` },
    ]);
  });

  it('a failed transaction reports nothing, even with balances that moved', async () => {
    const failed = tx({ sig: 's3', keys: ['payer', 'A'], pre: [10_000, 0], post: [4_000, 1_000], err: { InstructionError: [0, { Custom: 1 }] } });
    expect(await blockTransfers(block(failed), opts)).toEqual([]);
  });

  it('carries the memo of the Memo program instructions on every transfer of the transaction', async () => {
    const t = tx({ sig: 's5', keys: ['payer', 'A', 'MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr'], pre: [10_000, 0, 1], post: [4_000, 1_000, 1], fee: 5000 });
    // "invoice-42" in base58, as json encoding gives instruction data.
    t.transaction.message.instructions.push({ programIdIndex: 2, accounts: [], data: '6vZ6K5zNUceJUR' });
    const [transfer] = await blockTransfers(block(t), opts);
    expect(transfer).toMatchObject({ to: 'A', memo: 'invoice-42' });
  });

  it('indexes count the lookup tables’ accounts after the message’s keys', async () => {
    const out = await blockTransfers(
      block(tx({ sig: 's4', keys: ['payer'], pre: [10_000, 0, 0], post: [4_000, 1_000, 0], fee: 5000, loaded: { writable: ['L'], readonly: ['R'] } })),
      opts,
    );
    expect(out).toEqual([{ txid: 's4', index: 'sol:1', to: 'L', asset: 'SOL', configured: true, amount: 1_000n, from: ['payer'] }]);
  });
});
