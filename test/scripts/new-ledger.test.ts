import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { check, resolveConfig } from 'prettier';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotSupportedError } from '../../src/platform/errors.js';
import type { LedgerFamily } from '../../src/ledger/adaptor.js';
import { StoredStateError, type StateCodec } from '../../src/ledger/state-codec.js';
import { scaffoldLedger } from '../../scripts/new-ledger.js';

const repo = path.resolve(import.meta.dirname, '../..');

/**
 * Generates a family into a copy of the project layout in a temp directory (the existing
 * families, src/ and test/ linked, adaptors/index.ts copied), so the real tree is never touched.
 */
describe('npm run new-ledger', () => {
  let root: string;
  beforeAll(() => {
    root = mkdtempSync(path.join(tmpdir(), 'new-ledger-'));
    for (const dir of ['src', 'test', 'node_modules']) symlinkSync(path.join(repo, dir), path.join(root, dir));
    mkdirSync(path.join(root, 'adaptors'));
    cpSync(path.join(repo, 'adaptors', 'index.ts'), path.join(root, 'adaptors', 'index.ts'));
    for (const family of readdirSync(path.join(repo, 'adaptors'), { withFileTypes: true })) {
      if (family.isDirectory()) symlinkSync(path.join(repo, 'adaptors', family.name), path.join(root, 'adaptors', family.name));
    }
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('writes a family that registers with one line, typechecks, and answers "not implemented"', async () => {
    const before = readFileSync(path.join(root, 'adaptors', 'index.ts'), 'utf8');
    const files = await scaffoldLedger(root, 'zeta');
    // Formatted as `npm run lint` checks the project's code: prettier finds nothing to change.
    const style = (await resolveConfig(path.join(repo, 'package.json'))) ?? {};
    for (const f of [...files, 'adaptors/index.ts'])
      expect(await check(readFileSync(path.join(root, f), 'utf8'), { ...style, parser: 'typescript' }), f).toBe(true);
    // The shape every built-in family has: the same file for the same role.
    expect([...files].sort()).toEqual(
      [
        'index.ts',
        'address-codec.ts',
        'ledgers.ts',
        'options.ts',
        'context.ts',
        'conformance.test.ts',
        'test-kit.ts',
        'network/json-rpc.ts',
        'network/errors.ts',
        'local-node/hook.ts',
        ...['address', 'balances', 'broadcast', 'combine', 'craft', 'health', 'state', 'tx-status'].map((v) => `logic/${v}.ts`),
      ]
        .map((f) => `adaptors/zeta/${f}`)
        .sort(),
    );
    for (const family of ['ethereum', 'bitcoin', 'stellar', 'solana']) {
      for (const shared of [
        'index.ts',
        'address-codec.ts',
        'ledgers.ts',
        'options.ts',
        'context.ts',
        'conformance.test.ts',
        'test-kit.ts',
        'network/errors.ts',
        'local-node/hook.ts',
        'logic/craft.ts',
        'logic/state.ts',
      ]) {
        expect(existsSync(path.join(repo, 'adaptors', family, shared)), `adaptors/${family}/${shared}`).toBe(true);
      }
    }
    const after = readFileSync(path.join(root, 'adaptors', 'index.ts'), 'utf8');
    const added = after.split('\n').filter((l) => !before.split('\n').includes(l));
    expect(added).toEqual(["import { zetaFamily } from './zeta/index.js';", '  zetaFamily as LedgerFamily,']);

    const tsconfig = JSON.parse(readFileSync(path.join(repo, 'tsconfig.json'), 'utf8')) as { compilerOptions: object };
    writeFileSync(path.join(root, 'package.json'), JSON.stringify({ type: 'module' }));
    // global-setup.ts declares what the test helpers inject; families may declare untyped modules in .d.ts files.
    writeFileSync(
      path.join(root, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: tsconfig.compilerOptions,
        include: ['adaptors/zeta', 'adaptors/index.ts', 'adaptors/**/*.d.ts', 'test/global-setup.ts'],
      }),
    );
    const tsc = await promisify(execFile)(process.execPath, [path.join(repo, 'node_modules/typescript/bin/tsc'), '-p', root], { cwd: root }).then(
      () => '',
      (e: { stdout?: string }) => e.stdout ?? String(e),
    );
    expect(tsc).toBe('');

    const { families } = (await import(path.join(root, 'adaptors', 'index.ts'))) as { families: LedgerFamily[] };
    const zeta = families.find((f) => f.family === 'zeta');
    expect(zeta?.knownLedgers).toEqual(['zeta', 'zetadev']);
    const { zetaState } = (await import(path.join(root, 'adaptors', 'zeta', 'logic', 'state.ts'))) as { zetaState: StateCodec<object> };
    expect(zetaState.decode({})).toEqual({});
    expect(() => zetaState.decode({ left: 'over' })).toThrow(StoredStateError);
    const adaptor = zeta!.create('zetadev', zeta!.optionsSchema.parse({ rpcUrl: 'http://127.0.0.1:9' }), {} as never);
    expect(() => adaptor.addressFromPublicKey({ scheme: 'secp256k1', bytes: new Uint8Array(33) })).toThrow(NotSupportedError);
    await expect(adaptor.getBalances([], [])).rejects.toThrow(/zeta: getBalances is not implemented yet \(adaptors\/zeta\/logic\/balances.ts\)/);
    expect((await adaptor.health()).errorMessage).toMatch(/not implemented/);
    // Registered like the built-in families' development nodes, and saying which file to write.
    expect(families.filter((f) => f.family !== 'zeta').every((f) => f.localNode)).toBe(true);
    await expect(zeta!.localNode!()).rejects.toThrow(NotSupportedError);
    await expect(zeta!.localNode!()).rejects.toThrow(/zeta: the local development node is not implemented yet \(adaptors\/zeta\/local-node\/hook.ts\)/);
    // The built-in ids get address operations without a back end, the same ones the adaptor has.
    const codec = zeta!.addressCodec?.('zeta');
    expect(codec).toMatchObject({ ledgerId: 'zeta', family: 'zeta', network: 'mainnet', scheme: adaptor.scheme });
    expect(() => codec!.addressFromPublicKey({ scheme: 'secp256k1', bytes: new Uint8Array(33) })).toThrow(NotSupportedError);
    expect(zeta!.addressCodec?.('zetaother')).toBeUndefined();
  }, 120_000);

  it('refuses a bad name, an existing family and a name whose ledger ids another family knows, leaving adaptors/index.ts alone', async () => {
    const before = readFileSync(path.join(root, 'adaptors', 'index.ts'), 'utf8');
    await expect(scaffoldLedger(root, 'Bad-Name')).rejects.toThrow(/lower-case/);
    await expect(scaffoldLedger(root, 'solana')).rejects.toThrow(/already exists/);
    const { families } = await import('../../adaptors/index.js');
    await expect(
      scaffoldLedger(
        root,
        'btc',
        families.flatMap((f) => f.knownLedgers),
      ),
    ).rejects.toThrow(/clash with ids another family knows \(btc\)/);
    expect(existsSync(path.join(root, 'adaptors', 'btc'))).toBe(false);
    expect(readFileSync(path.join(root, 'adaptors', 'index.ts'), 'utf8')).toBe(before);
  });
});
