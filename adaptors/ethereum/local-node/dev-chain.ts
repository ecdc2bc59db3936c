import { Contract, ContractFactory, JsonRpcProvider, NonceManager, Wallet } from 'ethers';
import artifact from './demo-token.artifact.json' with { type: 'json' };

/** anvil's first well-known development account (public test mnemonic); never holds real funds. */
export const ANVIL_DEV_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80';

export interface DemoToken {
  symbol: string;
  contract: string;
  decimals: number;
}

/** A funder on a local dev chain: deploys the demo ERC-20 and sends ETH or tokens to addresses. */
export class DevChainFunder {
  private readonly provider: JsonRpcProvider;
  private readonly signer: NonceManager;

  constructor(rpcUrl: string, privateKey = ANVIL_DEV_KEY) {
    // cacheTimeout -1: ethers otherwise caches nonces for 250 ms, which breaks back-to-back sends.
    this.provider = new JsonRpcProvider(rpcUrl, undefined, { cacheTimeout: -1, staticNetwork: true });
    this.signer = new NonceManager(new Wallet(privateKey, this.provider));
  }

  async deployDemoToken(symbol = 'DEMO', decimals = 6, supply = 1_000_000_000n * 10n ** 6n): Promise<DemoToken> {
    const factory = new ContractFactory(artifact.abi, artifact.bytecode, this.signer);
    const contract = await factory.deploy(`${symbol} demo token`, symbol, decimals, supply);
    await contract.waitForDeployment();
    return { symbol, contract: await contract.getAddress(), decimals };
  }

  /**
   * Forgets the nonces counted here: after a reorganisation dropped one of this funder's
   * transactions, the node's count is lower than ours, and a send at our count would wait in the
   * node's queue behind the gap for ever.
   */
  resetNonce(): void {
    this.signer.reset();
  }

  /** Sends and, unless `wait` is false (a node that mines nothing now), waits until it is mined. */
  async sendEth(to: string, wei: bigint, wait = true): Promise<string> {
    const tx = await this.signer.sendTransaction({ to, value: wei });
    if (wait) await tx.wait();
    return tx.hash;
  }

  async sendToken(token: string, to: string, units: bigint, wait = true): Promise<string> {
    const erc20 = new Contract(token, ['function transfer(address,uint256) returns (bool)'], this.signer);
    const tx = (await erc20.getFunction('transfer')(to, units)) as { hash: string; wait(): Promise<unknown> };
    if (wait) await tx.wait();
    return tx.hash;
  }

  destroy(): void {
    this.provider.destroy();
  }
}
