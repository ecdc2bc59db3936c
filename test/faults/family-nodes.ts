/** Every ledger family on its real local node, for the fault tests that run per family. */
import { startBitcoinRegtest, type BitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { nonceAccountAddress } from '../../adaptors/solana/index.js';
import { startLocalSolanaNode, type LocalSolanaNode } from '../../adaptors/solana/local-node/index.js';
import { startStellarLedger, type LocalStellarLedger } from '../../adaptors/stellar/local-node/index.js';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import type { Loop } from '../helpers/loop.js';
import { withdraw } from '../pipeline/support.js';

/** The dev ledger of every family, in the order the tests run them. */
export const FAMILY_LEDGERS = ['ethdev', 'btcregtest', 'stellardev', 'solanadev'] as const;
export type FamilyLedgerId = (typeof FAMILY_LEDGERS)[number];

/** What reached the node since a mark, as the node itself counts it. */
export interface NodeSends {
  /** The transaction (id) of every send request, accepted or refused, in order. */
  requests: string[];
  /** Transactions the node executed, in order. */
  executed: string[];
}

export interface FamilyCase {
  ledgerId: FamilyLedgerId;
  /** Where the node answers; a test may put a proxy in front of it. */
  nodeUrl: string;
  /** The ledger's options for the service, reaching the node at `url` (default: the node itself). */
  options(url?: string): Record<string, unknown>;
  /** An amount to withdraw to a new address (above any minimum a new account needs). */
  amount: string;
  /**
   * A new vault of the loop, funded and ready to withdraw from. Solana's first withdrawal
   * creates the vault's durable nonce account, so a worker must be running for it.
   */
  readyVault(loop: Loop): Promise<{ vaultId: string; address: string }>;
  /** Where the node can count sends itself (Solana's facade): marks now, returns what came since. */
  markSends?(): () => NodeSends;
}

export interface FamilyNodes {
  chain: TestChain;
  regtest: BitcoinRegtest;
  stellar: LocalStellarLedger;
  solana: LocalSolanaNode;
  cases: FamilyCase[];
  case(ledgerId: FamilyLedgerId): FamilyCase;
  /** Ledger options of the given families (default all) for the service, each through `urls[ledgerId]` if given. */
  ledgers(opts?: { only?: readonly FamilyLedgerId[]; urls?: Partial<Record<FamilyLedgerId, string>> }): Record<string, unknown>;
  stop(): Promise<void>;
}

const SOL = 1_000_000_000n;
/** Above the rent-exempt minimum of an 80-byte nonce account (1,447,680 lamports). */
const NONCE_ACCOUNT_FUNDING = '0.0015';

/** anvil, a bcoin regtest node mining every 300 ms, the Stellar simulator and LiteSVM behind its JSON-RPC facade. */
export async function startFamilyNodes(): Promise<FamilyNodes> {
  const [chain, regtest, stellar, solana] = await Promise.all([
    startTestChain(),
    startBitcoinRegtest(),
    startStellarLedger({ closeIntervalMs: 0 }),
    startLocalSolanaNode(),
  ]);
  // Blocks keep coming, as on a live network, so Bitcoin transactions confirm.
  const miner = setInterval(() => void regtest.mine(1).catch(() => undefined), 300);
  const funded = (loop: Loop, ledgerId: FamilyLedgerId, fund: (address: string) => Promise<unknown>) => async () => {
    const v = await loop.vault(ledgerId);
    await fund(v.address);
    return v;
  };
  const cases: FamilyCase[] = [
    {
      ledgerId: 'ethdev',
      nodeUrl: chain.anvil.url,
      options: (url = chain.anvil.url) => ({ rpcUrl: url, confirmations: 1 }),
      amount: '0.001',
      readyVault: (loop) => funded(loop, 'ethdev', (a) => chain.funder.sendEth(a, 10n ** 17n))(),
    },
    {
      ledgerId: 'btcregtest',
      nodeUrl: regtest.url,
      options: (url = regtest.url) => ({ backend: 'esplora', url, confirmations: 1 }),
      amount: '0.001',
      readyVault: (loop) => funded(loop, 'btcregtest', (a) => regtest.faucet(a, 10_000_000n))(),
    },
    {
      ledgerId: 'stellardev',
      nodeUrl: stellar.url,
      options: (url = stellar.url) => ({ horizonUrl: url, networkPassphrase: stellar.passphrase }),
      amount: '1',
      readyVault: (loop) => funded(loop, 'stellardev', (a) => stellar.fund(a, '100'))(),
    },
    {
      ledgerId: 'solanadev',
      nodeUrl: solana.url,
      options: (url = solana.url) => ({ rpcUrl: url, tokens: [solana.usdc], confirmations: 1 }),
      // A new recipient account must hold its rent-exempt minimum (890,880 lamports).
      amount: '0.01',
      readyVault: async (loop) => {
        const v = await funded(loop, 'solanadev', (a) => solana.fund(a, 'SOL', SOL))();
        const setup = await withdraw(loop.svc, v.vaultId, {
          recipientAddress: await nonceAccountAddress(v.address),
          amount: NONCE_ACCOUNT_FUNDING,
          description: 'nonce account',
        });
        if (setup.status !== 200) throw new Error(`Solana nonce account setup refused: ${JSON.stringify(setup.body)}`);
        const done = await loop.waitFor(v.vaultId, setup.body.operationID as string, (o) => o.status === 'CONFIRMED' || o.status === 'FAILED', 30_000);
        if (done.status !== 'CONFIRMED') throw new Error(`Solana nonce account setup ended ${JSON.stringify(done)}`);
        return v;
      },
      markSends: () => {
        const requests = solana.facade.sendRequests.length;
        const executed = solana.facade.executed().length;
        return () => ({ requests: solana.facade.sendRequests.slice(requests), executed: solana.facade.executed().slice(executed) });
      },
    },
  ];
  const byId = (ledgerId: FamilyLedgerId) => {
    const c = cases.find((x) => x.ledgerId === ledgerId);
    if (!c) throw new Error(`no fault-test case for ${ledgerId}`);
    return c;
  };
  return {
    chain,
    regtest,
    stellar,
    solana,
    cases,
    case: byId,
    ledgers: ({ only = FAMILY_LEDGERS, urls = {} } = {}) => Object.fromEntries(only.map((id) => [id, byId(id).options(urls[id])])),
    stop: async () => {
      clearInterval(miner);
      await Promise.all([chain.stop(), regtest.stop(), stellar.stop(), solana.stop()]);
    },
  };
}
