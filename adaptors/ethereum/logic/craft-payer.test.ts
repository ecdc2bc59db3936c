import type { Contract } from 'ethers';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PermanentLedgerError } from '../../../src/platform/errors.js';
import type { AssetInfo, LedgerAdaptor, VaultSource } from '../../../src/ledger/adaptor.js';
import { deployContract, intent, newKey, sign, startHarness, waitReceipt, type Harness, type TestKey } from '../test-kit.js';

/**
 * An ERC20Votes-style token (OpenZeppelin ERC20Votes, COMP, UNI): a transfer from an account
 * that delegated its votes writes checkpoints, so it costs more gas than one from an account
 * that did not. It can also freeze an account (a blocklist): transfers from it revert.
 */
const VOTES_TOKEN = `
// SPDX-License-Identifier: MIT
pragma solidity ^0.8.20;
contract VotesToken {
  uint8 public constant decimals = 6;
  mapping(address => uint256) public balanceOf;
  mapping(address => address) public delegates;
  mapping(address => uint256[]) public checkpoints;
  mapping(address => bool) public frozen;
  event Transfer(address indexed from, address indexed to, uint256 value);
  constructor(uint256 supply) { balanceOf[msg.sender] = supply; }
  function delegateFor(address who, address to) external { delegates[who] = to; }
  function freeze(address who) external { frozen[who] = true; }
  function transfer(address to, uint256 value) external returns (bool) {
    require(!frozen[msg.sender], "frozen");
    require(balanceOf[msg.sender] >= value, "balance");
    balanceOf[msg.sender] -= value;
    balanceOf[to] += value;
    address d = delegates[msg.sender];
    if (d != address(0)) { checkpoints[d].push(block.number); checkpoints[d].push(balanceOf[msg.sender]); }
    emit Transfer(msg.sender, to, value);
    return true;
  }
}`;

const ETH = 10n ** 18n;

/**
 * What an ERC-20 transfer costs depends on who sends it. With several vault addresses (BIP44:
 * token deposit addresses often hold no ETH) the gas limit must be estimated from the address
 * that pays and sends, not from the first that holds the tokens.
 */
describe('ethereum craft estimates the gas from the address that sends', () => {
  let h: Harness;
  let closeProvider: () => void;
  let token: Contract;
  let adaptor: LedgerAdaptor;
  let vote: AssetInfo;

  beforeAll(async () => {
    h = await startHarness();
    const deployed = await deployContract(h, 'VotesToken', VOTES_TOKEN, 10n ** 15n);
    token = deployed.contract;
    closeProvider = deployed.close;
    adaptor = h.adaptor({ tokens: [{ symbol: 'VOTE', contract: deployed.address, decimals: 6 }] });
    vote = adaptor.assets().find((x) => x.symbol === 'VOTE')!;
  });
  afterAll(async () => {
    closeProvider?.();
    await h?.close();
  });

  const tokensTo = async (k: TestKey) => (await token.getFunction('transfer')(k.address, 1_000_000_000n)).wait();
  const vaultOf = (...keys: TestKey[]): VaultSource => ({
    vaultId: `vault-${keys[0]!.address}`,
    addresses: keys.map((k) => k.source.addresses[0]!),
    changeAddress: keys[0]!.address,
  });

  it("the first holder has no ETH, the payer delegated its votes: the limit covers the payer's transfer, which succeeds on chain", async () => {
    const a = newKey(adaptor); // tokens, no ETH for gas
    const b = newKey(adaptor); // tokens and ETH; delegated: its transfer writes checkpoints
    for (const k of [a, b]) await tokensTo(k);
    await (await token.getFunction('delegateFor')(b.address, b.address)).wait();
    await h.chain.funder.sendEth(b.address, ETH);

    const unsigned = await adaptor.craft(vaultOf(a, b), intent(adaptor, { asset: vote, amount: 100_000_000n }));
    const state = unsigned.state as { from: string; gasLimit: string; to: string; data: string };
    expect(state.from).toBe(b.address);
    const fromB = BigInt(await h.rpc<string>('eth_estimateGas', [{ from: b.address, to: state.to, data: state.data, value: '0x0' }]));
    const fromA = BigInt(await h.rpc<string>('eth_estimateGas', [{ from: a.address, to: state.to, data: state.data, value: '0x0' }]));
    // The point of the test: the first holder's estimate with its margin would not be enough.
    expect((fromA * 120n) / 100n).toBeLessThan(fromB);
    expect(BigInt(state.gasLimit)).toBeGreaterThanOrEqual(fromB);

    const [signed] = adaptor.combine(unsigned, sign(unsigned, b));
    await adaptor.broadcast(signed!);
    expect((await waitReceipt(h, signed!.txid)).status).toBe('0x1');
  });

  it('a transfer the node refuses from the first holder is sent from another holder that can make it', async () => {
    const a = newKey(adaptor); // tokens and ETH, but frozen: its transfer reverts
    const b = newKey(adaptor);
    for (const k of [a, b]) {
      await tokensTo(k);
      await h.chain.funder.sendEth(k.address, ETH);
    }
    await (await token.getFunction('freeze')(a.address)).wait();

    const unsigned = await adaptor.craft(vaultOf(a, b), intent(adaptor, { asset: vote, amount: 100_000_000n }));
    expect(unsigned.state).toMatchObject({ from: b.address, nonce: '0' });
    const [signed] = adaptor.combine(unsigned, sign(unsigned, b));
    await adaptor.broadcast(signed!);
    expect((await waitReceipt(h, signed!.txid)).status).toBe('0x1');

    // Alone, the frozen address is refused with the node's words, and nothing is reserved.
    const refused = await adaptor.craft(vaultOf(a), intent(adaptor, { asset: vote, amount: 100_000_000n })).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(PermanentLedgerError);
    expect((refused as Error).message).toMatch(/the node rejects this transfer: .*frozen/);
    const next = await adaptor.craft(vaultOf(a), intent(adaptor, { amount: 1n }));
    expect(next.state).toMatchObject({ from: a.address, nonce: '0' });
  });
});
