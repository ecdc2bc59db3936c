import { execFile } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestChain, type TestChain } from '../helpers/chain.js';
import { startLoop, type Loop } from '../helpers/loop.js';
import { WITHDRAW_KEY } from '../helpers/service.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLIENT = join(ROOT, 'clients/typescript');
const RECIPIENT = '0x00000000000000000000000000000000000000D1';

/**
 * The environment for npm and tsc run from the test: the repository's tools on PATH (the
 * client's build uses the repository's TypeScript, as `npm i <repo>/clients/typescript` does
 * from a checkout), and none of the npm variables of an enclosing `npm test`, which would point
 * npm at this repository instead of the temporary folders.
 */
function toolEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) || /^npm_config_(cache|registry|userconfig)$/i.test(k)) env[k] = v;
  env.PATH = `${join(ROOT, 'node_modules/.bin')}:${process.env.PATH ?? ''}`;
  return { ...env, ...extra };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = toolEnv()): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(cmd, args, { cwd, env, maxBuffer: 16 * 1024 * 1024, timeout: 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${cmd} ${args.join(' ')} failed in ${cwd}: ${error.message}\n${stdout}\n${stderr}`));
      else resolve(stdout);
    });
  });
}

/** The first ```ts block of the client's README: the snippet integrators copy. */
function readmeSnippet(): string {
  const readme = readFileSync(join(CLIENT, 'README.md'), 'utf8');
  const m = /```ts\n([\s\S]*?)```/.exec(readme);
  if (!m?.[1]) throw new Error('clients/typescript/README.md has no ```ts snippet');
  return m[1];
}

/** `text` with `from` replaced by `to`, failing when the README no longer has `from`. */
function swap(text: string, from: string, to: string): string {
  expect(text, `the README snippet no longer contains ${from}`).toContain(from);
  return text.split(from).join(to);
}

/**
 * clients/typescript as an integrator gets it: packed (`npm pack`), installed from the tarball
 * into a project of its own, the README's snippet typechecked against the installed types and
 * run against a live service (real Redis, anvil, custody simulator).
 */
describe('TypeScript client package (clients/typescript) installed from its tarball', () => {
  let tmp: string;
  let app: string;
  let tarball: string;
  let chain: TestChain;
  let loop: Loop;

  beforeAll(async () => {
    tmp = mkdtempSync(join(tmpdir(), 'byow-client-pack-'));
    // A copy of the package's sources, so a build does not write into the checkout; it builds
    // with the repository's installed modules (TypeScript, openapi-fetch), as in the checkout.
    const pkg = join(tmp, 'package');
    cpSync(CLIENT, pkg, { recursive: true, filter: (src) => !['dist', 'node_modules'].includes(basename(src)) || src === CLIENT });
    symlinkSync(join(ROOT, 'node_modules'), join(pkg, 'node_modules'), 'dir');
    await run('npm', ['pack', '--pack-destination', tmp, '--no-audit', '--no-fund'], pkg);
    const tgz = readdirSync(tmp).filter((f) => f.endsWith('.tgz'));
    expect(tgz).toHaveLength(1);
    tarball = join(tmp, tgz[0]!);

    app = join(tmp, 'app');
    mkdirSync(app);
    writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'byow-client-consumer', private: true, type: 'module' }));
    await run('npm', ['install', tarball, '--prefer-offline', '--no-audit', '--no-fund'], app);

    chain = await startTestChain();
    loop = await startLoop({ ethdev: { rpcUrl: chain.anvil.url, tokens: [chain.token], confirmations: 1 } });
  }, 300_000);
  afterAll(async () => {
    await loop?.stop();
    await chain?.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
  });

  it('packs the built code and its types', async () => {
    const files = (await run('tar', ['-tzf', tarball], tmp)).split('\n').filter(Boolean);
    expect(files).toEqual(
      expect.arrayContaining(['package/dist/index.js', 'package/dist/index.d.ts', 'package/dist/schema.d.ts', 'package/openapi.json', 'package/package.json']),
    );
    const installed = JSON.parse(readFileSync(join(app, 'node_modules/@byow/ledger-adaptor-client/package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
    };
    // Its one runtime dependency is installed with it.
    expect(Object.keys(installed.dependencies ?? {})).toEqual(['openapi-fetch']);
    expect(readdirSync(join(app, 'node_modules'))).toContain('openapi-fetch');
  });

  it("typechecks the README's snippet against the installed types and runs it against the service", async () => {
    const vault = await loop.vault('ethdev');
    await chain.funder.sendEth(vault.address, 3n * 10n ** 18n);

    const snippet = readmeSnippet();
    let live = swap(snippet, "'http://127.0.0.1:8080'", JSON.stringify(loop.svc.url));
    live = swap(live, "vaultId: 'vault-1'", `vaultId: ${JSON.stringify(vault.vaultId)}`);
    live = swap(live, "coinType: 'eth'", "coinType: 'ethdev'");
    live = swap(live, "ledgerId: 'eth', address: '0x…'", `ledgerId: 'ethdev', address: ${JSON.stringify(RECIPIENT)}`);
    live +=
      "\nconsole.log('REPORT ' + JSON.stringify({ status: status.data?.status, coin: coin.response.status, balance: balance.data, balanceAnswer: [balance.response.status, balance.error] }));\n";
    writeFileSync(join(app, 'snippet.ts'), snippet);
    writeFileSync(join(app, 'live.ts'), live);
    // Each line below must be a type error: were the installed types missing or `any`, tsc would
    // report the unused @ts-expect-error instead.
    writeFileSync(
      join(app, 'wrong.ts'),
      [
        "import { createByowClient } from '@byow/ledger-adaptor-client';",
        "const byow = createByowClient({ baseUrl: 'http://127.0.0.1:8080' });",
        '// @ts-expect-error: no such path',
        "await byow.GET('/api/v1.0/no-such-path');",
        '// @ts-expect-error: a vault id is a string',
        "await byow.GET('/api/v1.0/vaults/{vaultId}/balance', { params: { path: { vaultId: 42 } } });",
        '',
      ].join('\n'),
    );
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          lib: ['ES2023'],
          strict: true,
          types: ['node'],
          typeRoots: [join(ROOT, 'node_modules/@types')],
          outDir: 'out',
        },
        files: ['snippet.ts', 'live.ts', 'wrong.ts'],
      }),
    );
    await run(process.execPath, [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], app);

    const out = await run(process.execPath, ['out/live.js'], app, toolEnv({ BYOW_API_KEY: WITHDRAW_KEY }));
    const [first, reportLine] = out.trim().split('\n');
    // The snippet prints the service's withdrawal id, the custody operation id and the status.
    const [withdrawalId, operationID, status] = first!.split(' ');
    expect(withdrawalId).toMatch(/^\S+$/);
    expect(operationID).toMatch(/^\S+$/);
    expect(operationID).not.toBe(withdrawalId);
    expect(status).toBe('EXECUTING');
    const report = JSON.parse(reportLine!.replace(/^REPORT /, '')) as {
      status: string;
      coin: number;
      balance: { address: string; balances: unknown[] };
      balanceAnswer: unknown;
    };
    // Read right after the POST: the quorum may have signed, and the worker sent it, meanwhile.
    expect(['EXECUTING', 'SIGNED', 'BROADCAST', 'CONFIRMED']).toContain(report.status);
    expect(report.coin).toBe(200);
    // Its status and AppError name the cause when the balance is not there.
    expect(report.balance, JSON.stringify(report.balanceAnswer)).toMatchObject({ address: RECIPIENT });
  }, 180_000);
});
