import { DevChainFunder, type DemoToken } from '../../src/sandbox/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../src/sandbox/local-anvil.js';

export interface TestChain {
  anvil: LocalAnvil;
  funder: DevChainFunder;
  token: DemoToken;
  stop(): Promise<void>;
}

/** A fresh anvil (one per test file) with the demo ERC-20 deployed. */
export async function startTestChain(): Promise<TestChain> {
  const anvil = await startAnvil();
  const funder = new DevChainFunder(anvil.url);
  const token = await funder.deployDemoToken();
  return {
    anvil,
    funder,
    token,
    stop: async () => {
      funder.destroy();
      await anvil.stop();
    },
  };
}
