import { Wallet, type Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AssetInfo, LedgerAdaptor, VaultSource } from '../../../src/ledger/adaptor.js';
import { countedAdaptor, deployContract, intent, newKey, sign, startHarness, waitReceipt, type Harness, type TestKey } from '../test-kit.js';

/**
 * A token of the older kind (ZRX, and pausable ones written the same way): a transfer it
 * refuses returns `false` instead of reverting, so the transaction succeeds (status 1) and
 * moves nothing. A fee-on-transfer variant delivers less than was sent, with its events.
 */
const FALSE_TOKEN = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract FalseToken {
  uint8 public constant decimals = 6;
  mapping(address => uint256) public balanceOf;
  bool public paused;
  uint256 public feePercent;
  address constant SINK = address(0xfee);
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
  function setPaused(bool p) external { paused = p; }
  function setFeePercent(uint256 f) external { feePercent = f; }
  function transfer(address to, uint256 value) external returns (bool) {
    if (paused || balanceOf[msg.sender] < value) return false;
    uint256 fee = value * feePercent / 100;
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value - fee;
    emit Transfer(msg.sender, to, value - fee);
    if (fee > 0) { balanceOf[SINK] += fee; emit Transfer(msg.sender, SINK, fee); }
    return true;
  }
}`;

/** An early token that declared its event without `indexed`: from and to are in the log's data. */
const OLD_TOKEN = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract OldToken {
  uint8 public constant decimals = 6;
  mapping(address => uint256) public balanceOf;
  event Transfer(address from, address to, uint256 value);
  constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
  function transfer(address to, uint256 value) external returns (bool) {
    require(balanceOf[msg.sender] >= value, "balance");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    emit Transfer(msg.sender, to, value);
    return true;
  }
}`;

const ETH = 10n ** 18n;

type RpcAnswer = { id: number; result?: unknown };
/** A transport that rewrites the node's receipts on their way back, as a faulty node or proxy would. */
function receiptsRewritten(rewrite: (receipt: Record<string, unknown>) => void): typeof fetch {
  return (async (input: string | URL | Request, init?: RequestInit) => {
    const sent = [JSON.parse(String(init?.body))].flat() as { id: number; method: string }[];
    const res = await fetch(input, init);
    const body = (await res.json()) as RpcAnswer | RpcAnswer[];
    for (const answer of [body].flat()) {
      const asked = sent.find((r) => r.id === answer.id);
      if (asked?.method === 'eth_getTransactionReceipt' && answer.result) rewrite(answer.result as Record<string, unknown>);
    }
    return new Response(JSON.stringify(body), { status: res.status, headers: { 'content-type': 'application/json' } });
  }) as typeof fetch;
}

/**
 * A mined ERC-20 transfer is a payment only when the token says it moved: its `Transfer`
 * event from the vault to the recipient. Status 1 alone read a refused transfer as CONFIRMED.
 */
describe('ethereum txStatus of a token transfer that moved nothing', () => {
  let h: Harness;
  let closeProvider: () => void;
  let token: Contract;
  let adaptor: LedgerAdaptor;
  let asset: AssetInfo;

  beforeAll(async () => {
    h = await startHarness();
    const deployed = await deployContract(h, 'FalseToken', FALSE_TOKEN, 10n ** 15n);
    token = deployed.contract;
    closeProvider = deployed.close;
    adaptor = h.adaptor({ tokens: [{ symbol: 'FALSE', contract: deployed.address, decimals: 6 }] });
    asset = adaptor.assets().find((x) => x.symbol === 'FALSE')!;
  });
  afterAll(async () => {
    closeProvider?.();
    await h?.close();
  });

  const vaultOf = (k: TestKey): VaultSource => ({ vaultId: `vault-${k.address}`, addresses: [k.source.addresses[0]!], changeAddress: k.address });
  const recipient = () => Wallet.createRandom().address;

  async function funded(): Promise<TestKey> {
    const k = newKey(adaptor);
    await (await token.getFunction('transfer')(k.address, 1_000_000_000n)).wait();
    await h.chain.funder.sendEth(k.address, ETH);
    return k;
  }

  async function mined(k: TestKey, to: string) {
    const unsigned = await adaptor.craft(vaultOf(k), intent(adaptor, { asset, amount: 100_000_000n, recipientAddress: to }));
    const [signed] = adaptor.combine(unsigned, sign(unsigned, k));
    await adaptor.broadcast(signed!);
    expect((await waitReceipt(h, signed!.txid)).status).toBe('0x1');
    return adaptor.txStatus(signed!.txid, unsigned);
  }

  it('a transfer the token refused with `false` is failed, with its block, not confirmed', async () => {
    const k = await funded();
    const to = recipient();
    // Crafted while the token still accepts it (the estimate does not revert either way), refused when mined.
    await (await token.getFunction('setPaused')(true)).wait();
    try {
      const status = await mined(k, to);
      expect(status.state).toBe('failed');
      expect(status.reason).toMatch(/the token moved nothing: no Transfer event to/);
      expect(status.blockHeight).toBeGreaterThan(0);
      expect(status.confirmations).toBeGreaterThanOrEqual(1);
      expect(await token.getFunction('balanceOf')(to)).toBe(0n);
    } finally {
      await (await token.getFunction('setPaused')(false)).wait();
    }
  });

  it('a receipt that comes without its logs, or with none while its bloom holds the Transfer, is not judged: pending, never failed', async () => {
    const k = await funded();
    const to = recipient();
    const unsigned = await adaptor.craft(vaultOf(k), intent(adaptor, { asset, amount: 100_000_000n, recipientAddress: to }));
    const [signed] = adaptor.combine(unsigned, sign(unsigned, k));
    await adaptor.broadcast(signed!);
    await waitReceipt(h, signed!.txid);
    const options = { tokens: [{ symbol: 'FALSE', contract: token.target as string, decimals: 6 }] };
    const withoutLogs = countedAdaptor(
      h,
      options,
      receiptsRewritten((r) => delete r.logs),
    ).adaptor;
    expect(await withoutLogs.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'pending', confirmations: 0 });
    const emptyLogs = countedAdaptor(
      h,
      options,
      receiptsRewritten((r) => (r.logs = [])),
    ).adaptor;
    expect(await emptyLogs.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'pending', confirmations: 0 });
    expect(await adaptor.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'confirmed' });
  });

  it('an early token whose Transfer event carries from and to in its data is confirmed', async () => {
    const old = await deployContract(h, 'OldToken', OLD_TOKEN, 10n ** 15n);
    try {
      const oldAdaptor = h.adaptor({ tokens: [{ symbol: 'OLD', contract: old.address, decimals: 6 }] });
      const oldAsset = oldAdaptor.assets().find((x) => x.symbol === 'OLD')!;
      const k = newKey(oldAdaptor);
      await (await old.contract.getFunction('transfer')(k.address, 1_000_000_000n)).wait();
      await h.chain.funder.sendEth(k.address, ETH);
      const to = recipient();
      const unsigned = await oldAdaptor.craft(vaultOf(k), intent(oldAdaptor, { asset: oldAsset, amount: 5_000_000n, recipientAddress: to }));
      const [signed] = oldAdaptor.combine(unsigned, sign(unsigned, k));
      await oldAdaptor.broadcast(signed!);
      expect((await waitReceipt(h, signed!.txid)).status).toBe('0x1');
      expect(await oldAdaptor.txStatus(signed!.txid, unsigned)).toMatchObject({ state: 'confirmed' });
      expect(await old.contract.getFunction('balanceOf')(to)).toBe(5_000_000n);
    } finally {
      old.close();
    }
  });

  it('a transfer that moved tokens is confirmed, also when a fee-on-transfer token delivers less', async () => {
    const k = await funded();
    expect((await mined(k, recipient())).state).toBe('confirmed');
    await (await token.getFunction('setFeePercent')(2)).wait();
    const to = recipient();
    const status = await mined(k, to);
    expect(status.state).toBe('confirmed');
    expect(await token.getFunction('balanceOf')(to)).toBe(98_000_000n);
  });
});
