import { randomBytes } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { networks, payments, Transaction } from 'bitcoinjs-lib';
import { JsonRpcProvider, Wallet } from 'ethers';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { revHex } from '../../adaptors/bitcoin/local-node/bcoin.js';
import { startBitcoinRegtest } from '../../adaptors/bitcoin/local-node/index.js';
import { DevChainFunder } from '../../adaptors/ethereum/local-node/dev-chain.js';
import { startAnvil, type LocalAnvil } from '../../adaptors/ethereum/local-node/local-anvil.js';
import { ADMIN, dropPrefix, startHarness, type Harness } from './harness.js';
import { startBlocksetFacade } from './vendor-samples/blockset-facade.js';
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
 * - bitcoin/byow: 1.0.1811 (its coin list reader takes `coins`, the 1.0.1810-1.0.1812 shape; its
 *   BTCTEST_FULL flow never lists coins, and sends `rawTransactions` whatever the release).
 * - ethereum/erc20's custody client: 1.0.1905 (an API key as bearer, paged and filtered lists,
 *   the join request as `JOIN_VAULT` with top-level `groups`, a BIP44 address list as a page of
 *   keys). Run through its module (see vendor-samples/erc20-client-runner.cjs), not its CLI.
 */

const ETH_BYOW = path.join(VENDOR_ROOT, 'blockchain', 'ethereum', 'byow');
const BTC_BYOW = path.join(VENDOR_ROOT, 'blockchain', 'bitcoin', 'byow');
const ERC20 = path.join(VENDOR_ROOT, 'blockchain', 'ethereum', 'erc20');
const ERC20_RUNNER = fileURLToPath(new URL('./vendor-samples/erc20-client-runner.cjs', import.meta.url));

const INFURA_TOKEN = 'local-anvil';

const installs: Record<string, SampleInstall> = {};
let anvil: LocalAnvil;
let funder: DevChainFunder;

beforeAll(async () => {
  const [eth, btc, erc20] = await Promise.all([installSample(ETH_BYOW), installSample(BTC_BYOW), installSample(ERC20)]);
  Object.assign(installs, { eth, btc, erc20 });
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

/**
 * ethereum/byow started on the emulator with the administrator's password and these answers,
 * its bot started from the line it prints.
 */
async function ethByow(h: Harness, answers: [string, string][], routes: [string, string][] = []) {
  const dir = await sampleWorkdir(ETH_BYOW, installs.eth!.nodeModules);
  const run = runSample({
    cwd: dir,
    entry: 'index.js',
    routes: [['https://localhost', h.running.baseUrl], ...routes],
    answers: [['password', ADMIN.password], ...answers],
  });
  track(run, dir);
  const [, participant, code] = await run.waitFor(BOT_LINE);
  const bot = trackBot(startBot(h, participant as string, code));
  return { dir, run, bot };
}

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
      const recipient = Wallet.createRandom().address;
      const { dir, run, bot } = await ethByow(
        h,
        [['token', INFURA_TOKEN], ...(hierarchy === 'NONE' ? ([['hierarchy', 'NONE']] as [string, string][]) : []), ['to', recipient]],
        // The Infura project token typed at the prompt is part of Infura's URL.
        [[`https://ropsten.infura.io/v3/${INFURA_TOKEN}`, anvil.url]],
      );
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

  it('ethereum/byow GEN_PUB_KEY on 1.0.1905: a single-key EdDSA vault and its public key', async () => {
    const h = await harness('1.0.1905');
    const { dir, run } = await ethByow(h, [
      ['demoType', 'GEN_PUB_KEY'],
      ['hierarchy', 'NONE'],
      ['cryptoKind', 'EDDSA'],
    ]);
    expect(await run.exited, run.lines.join('\n')).toBe(0);
    const out = run.lines.join('\n');
    expect(out).toContain('Vault Demo GEN_PUB_KEY created successfully.');
    expect(out).toContain('Getting public key from CASP for non-BIP44 vault');
    expect(out).not.toMatch(/Something went wrong|refused/);
    const state = await readState(dir);
    expect(await legacy(h, `/vaults/${state.activeVault.id as string}`)).toMatchObject({ hierarchy: 'NONE', cryptoKind: 'EDDSA', status: 'INITIALIZED' });
    const { publicKey } = await legacy(h, `/vaults/${state.activeVault.id as string}/publickey`);
    // EdDSA keys come raw: the sample keeps the key as it came, as its id and as its raw bytes.
    expect(state.publicKey).toEqual({ keyId: publicKey, publicKeyRaw: publicKey });
    expect(out).toContain(`"keyId": "${publicKey as string}"`);
  }, 60_000);

  it('ethereum/byow MULTI_COIN on 1.0.1905: a BIP44 vault and its coin list, where the sample stops at its own error', async () => {
    const h = await harness('1.0.1905');
    const { dir, run } = await ethByow(h, [['demoType', 'MULTI_COIN']]);
    expect(await run.exited, run.lines.join('\n')).toBe(0);
    const out = run.lines.join('\n');
    expect(out).toContain('Vault Demo MULTI_COIN created successfully.');
    const state = await readState(dir);
    expect(await legacy(h, `/vaults/${state.activeVault.id as string}`)).toMatchObject({ hierarchy: 'BIP44', status: 'INITIALIZED' });
    expect(await legacy(h, `/vaults/${state.activeVault.id as string}/coins`)).toMatchObject({ items: [60] });
    // vaults.js listCoins keeps the answer of GET /coins in `coinsResponse` and returns
    // `coins.items || …`: a ReferenceError of the sample's own, once the emulator has answered.
    // Adding a coin (typed at the prompt, so a string) is never reached; vendor-samples.test.ts
    // replays that request.
    expect(out).toContain('Something went wrong: coins is not defined');
    expect(out).not.toContain('Available vault coins');
  }, 60_000);

  it('bitcoin/byow BTCTEST_FULL on 1.0.1811: login, account, participant, BIP44 vault, address, deposit, PSBT signed and checked, sent and mined on regtest', async () => {
    const h = await harness('1.0.1811');
    const regtest = await startBitcoinRegtest();
    cleanup.push(() => regtest.stop());
    const blockset = await startBlocksetFacade(regtest.node);
    cleanup.push(() => blockset.stop());
    const dir = await sampleWorkdir(BTC_BYOW, installs.btc!.nodeModules);
    // The sample builds for bitcoinjs's testnet, whose P2PKH prefix regtest shares.
    const recipientHash = randomBytes(20);
    const recipient = payments.p2pkh({ hash: recipientHash, network: networks.regtest }).address as string;
    const run = runSample({
      cwd: dir,
      entry: 'index.js',
      routes: [
        ['https://localhost', h.running.baseUrl],
        ['https://api.blockset.com', blockset.url],
      ],
      answers: [
        ['password', ADMIN.password],
        ['token', 'local-blockset'],
        ['to', recipient],
      ],
    });
    track(run, dir);
    const [, participant, code] = await run.waitFor(BOT_LINE);
    const bot = trackBot(startBot(h, participant as string, code));
    const [, address] = await run.waitFor(/Generated address: ([mn][1-9A-HJ-NP-Za-km-z]{25,34})$/);
    const deposit = await regtest.faucet(address as string, 1_000_000n);
    expect(await run.exited, run.lines.join('\n')).toBe(0);
    const out = run.lines.join('\n');

    expect(out).toContain('Connected to CASP at https://localhost');
    expect(out).toContain('Connection Healthy!');
    expect(out).toContain("'so' logged-in. Token will expire in");
    expect(out).toContain("Using account 'Test'");
    expect(out).toContain("Using participant: 'Bot1' as the only quorum approver");
    expect(out).toContain('Vault Demo BTCTEST_FULL created successfully.');
    expect(out).toContain('Generating key with CASP for BIP44 vault');
    expect(out).toContain('Balance is: 0.01 BTC');
    expect(out).toMatch(/Signature created: [0-9A-Fa-f]{128}/);
    const [, txid] = /Transaction sent successfully, txHash is: ([0-9a-f]{64})/.exec(out) ?? [];
    expect(txid, out).toBeDefined();
    expect(out).not.toMatch(/Something went wrong|refused/);

    const state = await readState(dir);
    expect(state.caspRelease).toBe(1811);
    const vault = await legacy(h, `/vaults/${state.activeVault.id as string}`);
    expect(vault).toMatchObject({ name: 'Demo BTCTEST_FULL', hierarchy: 'BIP44', status: 'INITIALIZED', isActive: true });
    // The sample's own PSBT check passed (validateSignaturesOfInput) before it sent; the node took it.
    expect(blockset.submitted).toEqual([txid]);
    const signs = bot.actions.filter((a) => a.startsWith('approve SIGN'));
    expect(bot.actions.slice(0, 2)).toEqual(['activate', `join ${state.activeVault.id as string}`]);
    expect(signs).toHaveLength(1);
    const signOp = await legacy(h, `/operations/sign/${(signs[0] as string).split(' ')[2] as string}`);
    expect(signOp).toMatchObject({ status: 'COMPLETED', ledgerHashAlgorithm: 'DOUBLE_SHA256', rawTransactions: [expect.any(String)] });
    // The sample reads its PSBT back without a network (Psbt.fromHex), so its providerData names
    // the recipient in mainnet form: the same key hash, another prefix.
    const asMainnet = payments.p2pkh({ hash: recipientHash, network: networks.bitcoin }).address;
    expect(JSON.parse(signOp.providerData as string).recipients).toEqual([{ address: asMainnet, asset: 'BTC', amount: 999_000 }]);

    // Mined: the deposit spent, everything but the sample's fixed 1000-satoshi fee to the recipient.
    await regtest.mine(1);
    const mined = await regtest.node.node.getMeta(revHex(txid as string));
    expect(mined?.height).toBe(regtest.node.height);
    const tx = Transaction.fromBuffer(mined?.tx.toRaw() as Buffer);
    expect(
      Buffer.from(tx.ins[0]?.hash as Uint8Array)
        .reverse()
        .toString('hex'),
    ).toBe(deposit);
    expect(tx.outs).toHaveLength(1);
    expect(tx.outs[0]?.value).toBe(999_000n);
    expect(Buffer.from(tx.outs[0]?.script as Uint8Array).toString('hex')).toBe(
      Buffer.from(payments.p2pkh({ address: recipient, network: networks.regtest }).output as Uint8Array).toString('hex'),
    );
  }, 120_000);

  it('ethereum/erc20 custody client on 1.0.1905: API key, both configured vaults created, joins awaited through JOIN_VAULT, default keys, a withdrawal from each mined on anvil', async () => {
    const h = await harness('1.0.1905');
    // What the sample's README has the administrator do first: an API key, an account, an active bot.
    const key = await h.call(
      'POST',
      '/auth/apikeys',
      { client_id: 'erc', client_role: 'ADMIN', scope: '/mng', grant_type: 'client_credentials' },
      { base: 'legacy', token: h.token },
    );
    expect(key.status, JSON.stringify(key.json)).toBe(201);
    const account = await h.call('POST', '/accounts', { name: 'CASP' }, { base: 'legacy', token: h.token });
    const botP = await h.call(
      'POST',
      `/accounts/${account.json.id as string}/participants`,
      { name: 'casp-bot1', email: 'bot@example.com', role: 'Bot' },
      { base: 'legacy', token: h.token },
    );
    const dir = await sampleWorkdir(ERC20, installs.erc20!.nodeModules);
    const group = { A: { requiredApprovals: 1, members: ['casp-bot1'] } };
    await writeFile(
      path.join(dir, 'config.json'),
      JSON.stringify({
        apiKey: key.json.access_token,
        caspHost: 'localhost',
        ethChainId: 3,
        infuraHost: `https://ropsten.infura.io/v3/${INFURA_TOKEN}`,
        gasPriceGwei: 10,
        vaults: [
          { name: 'UBTKN Contract', hierarchy: 'NONE', providerKind: 'ETHTEST-ROPSTEN', groups: group },
          { name: 'UBTKN exchange', hierarchy: 'BIP44', coinType: 60, firstAccountName: 'Default', providerKind: 'ETHTEST-ROPSTEN', groups: group },
        ],
      }),
    );
    // The client expects an active participant: the bot activates first.
    expect((await h.device('POST', `/participants/${botP.json.id as string}/activate`, { activationCode: botP.json.activationCode })).status).toBe(200);
    const recipient = Wallet.createRandom().address;
    const run = runSample({
      cwd: dir,
      entry: ERC20_RUNNER,
      routes: [
        ['https://localhost', h.running.baseUrl],
        [`https://ropsten.infura.io/v3/${INFURA_TOKEN}`, anvil.url],
      ],
      env: { WITHDRAW_TO: recipient, WITHDRAW_ETH: '0.25' },
    });
    track(run, dir);
    // The client looks for its vault's join request once it made the vault: the bot answers a
    // request only after the client has shown it, else the client could miss it (as with a real bot).
    const bot = trackBot(startBot(h, botP.json.id as string, undefined, (id) => run.lines.some((l) => l.includes(` operation ${id}`))));
    for (const name of ['UBTKN Contract', 'UBTKN exchange']) {
      const [, address] = await run.waitFor(new RegExp(`Vault '${name}' address: (0x[0-9a-fA-F]{40})`));
      await funder.sendEth(address as string, 10n ** 18n);
    }
    expect(await run.exited, run.lines.join('\n')).toBe(0);
    const out = run.lines.join('\n');

    const vaults = (await legacy(h, `/accounts/${account.json.id as string}/vaults`)).items as {
      id: string;
      name: string;
      hierarchy: string;
      status: string;
    }[];
    expect(vaults.map((v) => [v.name, v.hierarchy, v.status]).sort()).toEqual([
      ['UBTKN Contract', 'NONE', 'INITIALIZED'],
      ['UBTKN exchange', 'BIP44', 'INITIALIZED'],
    ]);
    for (const v of vaults) {
      expect(out).toContain(`Vault '${v.name}' created (${v.id}), ${v.hierarchy}`);
      expect(out).toContain(`Vault '${v.name}' is not active yet`);
    }
    expect(out.match(/Join operation \S+: /g)).toHaveLength(2);
    expect(out.match(/Join operation COMPLETED/g)).toHaveLength(2);
    const sent = [...out.matchAll(/Withdrawal from '([^']+)': transaction (0x[0-9a-f]{64}) status true/g)];
    expect(
      sent.map((m) => m[1]),
      out,
    ).toEqual(['UBTKN Contract', 'UBTKN exchange']);
    // Who had yet to approve, read from each pending operation's top-level groups (a member's
    // label is its participant's role here).
    expect(out.match(/^Pending approval: Bot$/gm)?.length ?? 0, out).toBeGreaterThanOrEqual(4);
    expect(bot.actions.filter((a) => a.startsWith('join'))).toHaveLength(2);
    expect(bot.actions.filter((a) => a.startsWith('approve SIGN'))).toHaveLength(2);

    const provider = new JsonRpcProvider(anvil.url, undefined, { staticNetwork: true });
    try {
      for (const m of sent) expect((await provider.getTransactionReceipt(m[2] as string))?.status).toBe(1);
      expect(await provider.getBalance(recipient)).toBe(2n * 25n * 10n ** 16n);
    } finally {
      provider.destroy();
    }
    // Each withdrawal carried its raw transaction, as the client sends it for transfers.
    for (const a of bot.actions.filter((x) => x.startsWith('approve SIGN'))) {
      expect(await legacy(h, `/operations/sign/${a.split(' ')[2] as string}`)).toMatchObject({
        status: 'COMPLETED',
        ledgerHashAlgorithm: 'SHA3_256',
        rawTransactions: [expect.any(String)],
      });
    }
  }, 120_000);
});
