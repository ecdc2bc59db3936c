import path from 'node:path';
import { rm } from 'node:fs/promises';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { DevChainFunder } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { ADMIN, dropPrefix, startHarness, type Harness } from './harness.js';
import { startBot, type Bot } from './vendor-samples/bot.js';
import { installSample, type SampleInstall } from './vendor-samples/install.js';
import { readState, runSample, sampleWorkdir, VENDOR_ROOT, type SampleRun } from './vendor-samples/sample-process.js';

/**
 * The vendor's public sample clients (test/custody-emulator/vendor/unbound-sample-code, copied
 * unmodified: see its NOTICE.md) run as published, each in a Node process of its own with its
 * own locked dependencies, against the custody emulator. Only transport, prompts and devices are
 * played: the samples' `https://localhost` goes to the emulator, Infura (Ropsten) to a local anvil
 * on chain id 3 and Blockset to a Blockset-shaped facade over a bcoin regtest node; prompts take
 * their defaults or a scripted answer; the participant's bot (the vendor's BotSigner) is played
 * through the emulator-only routes.
 *
 * Which revision each speaks, and the base that serves it (`/casp`):
 * - ethereum/byow: 1.0.1811 and 1.0.1905 alike; it reads the release from `/status` and sends
 *   `rawTransactions` and `ledgerHashAlgorithm` only from release 1812.
 */

const ETH_BYOW = path.join(VENDOR_ROOT, 'blockchain', 'ethereum', 'byow');

const INFURA_TOKEN = 'local-anvil';

const installs: Record<string, SampleInstall> = {};
let anvil: LocalAnvil;
let funder: DevChainFunder;

beforeAll(async () => {
  const [eth] = await Promise.all([installSample(ETH_BYOW)]);
  installs.eth = eth;
  for (const [name, i] of Object.entries(installs))
    if (i.installedSeconds !== undefined) console.log(`vendor sample ${name}: dependencies installed in ${i.installedSeconds.toFixed(1)} s`);
  // The samples sign for Ropsten (chain id 3, EIP-155): the local node takes that id.
  anvil = await startAnvil({ chainId: 3 });
  funder = new DevChainFunder(anvil.url);
}, 600_000);

afterAll(async () => {
  funder?.destroy();
  await anvil?.stop();
});

const cleanup: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function harness(legacyRevision: '1.0.1811' | '1.0.1905'): Promise<Harness> {
  const h = await startHarness({ legacyRevision });
  cleanup.push(() => dropPrefix(h.redis, h.prefix), h.stop);
  return h;
}

function track(run: SampleRun, dir: string): void {
  cleanup.push(async () => {
    run.kill();
    await rm(dir, { recursive: true, force: true });
  });
}

function trackBot(bot: Bot): Bot {
  cleanup.push(() => bot.stop());
  return bot;
}

/** The line the samples print for the user to start the vendor's bot with. */
const BOT_LINE = /To activate as BOT, run: .* -p (\S+) -w \S+ -c (\S+)'/;

async function legacy(h: Harness, p: string) {
  const res = await h.call('GET', p, undefined, { base: 'legacy', token: h.token });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json;
}

describe('the vendor sample clients, run unchanged against the emulator', () => {
  for (const [revision, hierarchy] of [
    ['1.0.1905', 'BIP44'],
    ['1.0.1811', 'NONE'],
  ] as const) {
    it(`ethereum/byow ETH_FULL on ${revision} (${hierarchy} vault): login, account, participant, vault, address, deposit, signature, mined on anvil`, async () => {
      const h = await harness(revision);
      const dir = await sampleWorkdir(ETH_BYOW, installs.eth!.nodeModules);
      const recipient = Wallet.createRandom().address;
      const run = runSample({
        cwd: dir,
        entry: 'index.js',
        routes: [
          ['https://localhost', h.running.baseUrl],
          // The Infura project token typed at the prompt is part of Infura's URL.
          [`https://ropsten.infura.io/v3/${INFURA_TOKEN}`, anvil.url],
        ],
        answers: [
          ['password', ADMIN.password],
          ['token', INFURA_TOKEN],
          ...(hierarchy === 'NONE' ? ([['hierarchy', 'NONE']] as [string, string][]) : []),
          ['to', recipient],
        ],
      });
      track(run, dir);
      const [, participant, code] = await run.waitFor(BOT_LINE);
      const bot = trackBot(startBot(h, participant as string, code));
      const [, address] = await run.waitFor(/Generated address: (0x[0-9a-fA-F]{40})/);
      await funder.sendEth(address as string, 10n ** 18n);
      expect(await run.exited, run.lines.join('\n')).toBe(0);
      const out = run.lines.join('\n');

      // Each step as the sample reports it.
      expect(out).toContain('Connected to CASP at https://localhost');
      expect(out).toContain("'so' logged-in. Token will expire in");
      expect(out).toContain("Using account 'Test'");
      expect(out).toContain("Participant 'Bot1' created. Participant needs activation");
      expect(out).toContain("Using participant: 'Bot1' as the only quorum approver");
      expect(out).toContain('Vault Demo ETH_FULL created successfully.');
      expect(out).toMatch(hierarchy === 'BIP44' ? /Generating key with CASP for BIP44 vault/ : /Getting public key from CASP for non-BIP44 vault/);
      expect(out).toContain('Balance is: 1 Ether');
      expect(out).toContain('Signature verified successfully');
      const [, txHash] = /Transaction sent successfully, txHash is: (0x[0-9a-f]{64})/.exec(out) ?? [];
      expect(txHash, out).toBeDefined();
      expect(out).not.toMatch(/Something went wrong|refused/);

      // The sample's own state and the emulator's.
      const state = await readState(dir);
      expect(state.caspRelease).toBe(Number(revision.split('.')[2]));
      expect(state.pendingTransaction.transactionHash).toBe(txHash);
      const vault = await legacy(h, `/vaults/${state.activeVault.id as string}`);
      expect(vault).toMatchObject({ name: 'Demo ETH_FULL', hierarchy, cryptoKind: 'ECDSA', status: 'INITIALIZED', isActive: true });
      const signOp = await legacy(h, `/operations/sign/${state.signOperation.operationID as string}`);
      expect(signOp.status).toBe('COMPLETED');
      expect(signOp.vaultID ?? signOp.vaultId).toBe(state.activeVault.id);
      // What the sample sends depends on the release it read: 1811 leaves rawTransactions out.
      if (revision === '1.0.1811') expect(signOp.rawTransactions ?? []).toEqual([]);
      else expect(signOp).toMatchObject({ rawTransactions: [state.pendingTransaction.rawTransaction], ledgerHashAlgorithm: 'SHA3_256' });
      expect(bot.actions).toEqual(['activate', `join ${state.activeVault.id as string}`, `approve SIGN ${state.signOperation.operationID as string}`]);

      // Mined on the local chain: everything but the fee went to the recipient.
      const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
      try {
        const receipt = await provider.getTransactionReceipt(txHash as string);
        expect(receipt?.status).toBe(1);
        expect(receipt?.from).toBe(address);
        expect(receipt?.to).toBe(recipient);
        expect(await provider.getBalance(recipient)).toBeGreaterThan(0n);
      } finally {
        provider.destroy();
      }
    }, 90_000);
  }
});
