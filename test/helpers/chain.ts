import { DevChainFunder, type DemoToken } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { startHardhat, type LocalEvmNode } from '../../adaptors/ethereum/local-node/local-hardhat.js';

/** The EVM implementations the Ethereum suites run on: anvil queues nonce gaps, Hardhat (automining) refuses them. */
export const EVM_NODES = ['anvil', 'hardhat'] as const;
export type EvmNodeKind = (typeof EVM_NODES)[number];

export interface TestChain {
  kind: EvmNodeKind;
  /** The running node, whichever implementation (the field keeps its first implementation's name). */
  anvil: LocalEvmNode;
  funder: DevChainFunder;
  token: DemoToken;
  stop(): Promise<void>;
}

/**
 * A fresh local EVM node (one per test file) with the demo ERC-20 deployed. Anvil keeps a few
 * recent states, as a real node keeps its recent blocks' state: with none kept, a read at
 * `latest` that meets a block being mined is refused ("BlockOutOfRangeError: block height is 3
 * but requested was 2"), which failed the client package's balance read in one CI run.
 */
export async function startTestChain(kind: EvmNodeKind = 'anvil'): Promise<TestChain> {
  const node = kind === 'hardhat' ? await startHardhat() : await startAnvil({ keepStates: 8 });
  const funder = new DevChainFunder(node.url);
  const token = await funder.deployDemoToken();
  return {
    kind,
    anvil: node,
    funder,
    token,
    stop: async () => {
      funder.destroy();
      await node.stop();
    },
  };
}
