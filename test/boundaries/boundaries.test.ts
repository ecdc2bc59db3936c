import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { cruise, type ICruiseResult, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

/**
 * The import boundaries of .dependency-cruiser.cjs (run over src/ and adaptors/ by `npm run lint`)
 * against a small tree that breaks each of them once: every rule must name its violation, and
 * nothing the rules allow (a family's dynamic local-node hook, the composition root's dynamic
 * sandbox import and a type it names, a local node's free port) may be reported.
 */
const config = createRequire(import.meta.url)('../../.dependency-cruiser.cjs') as IConfiguration & { forbidden: unknown[] };
const FIXTURE = fileURLToPath(new URL('./fixture/', import.meta.url));

async function violations(): Promise<string[]> {
  const { forbidden, options } = config as { forbidden: never[]; options: Record<string, unknown> };
  const { tsConfig: _tsConfig, ...rest } = options;
  const result = await cruise(['src', 'adaptors'], { ...rest, baseDir: FIXTURE, validate: true, ruleSet: { forbidden } });
  const output = result.output as ICruiseResult;
  return output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`).sort();
}

describe('import boundaries', () => {
  it('reports each deliberate violation in the fixture, by its rule, and nothing else', async () => {
    expect(await violations()).toEqual(
      [
        'a-family-loads-its-local-node-on-demand: adaptors/fam/index.ts -> adaptors/fam/local-node/helper.ts',
        'adaptors-only-from-the-composition-root: src/withdrawals/knows-a-family.ts -> adaptors/fam/index.ts',
        'adaptors-see-the-contract-and-the-platform: adaptors/fam/index.ts -> src/withdrawals/ok.ts',
        'local-nodes-see-the-contract-the-platform-and-dev-tools: adaptors/fam/local-node/hook.ts -> src/withdrawals/ok.ts',
        'no-circular: adaptors/fam/logic/first.ts -> adaptors/fam/logic/second.ts',
        'nothing-imports-the-composition-root: src/vaults/uses-root.ts -> src/app/core.ts',
        'platform-is-the-ground: src/platform/upward.ts -> src/ledger/adaptor.ts',
        'production-never-imports-development-code: src/http/uses-dev.ts -> src/dev/free-port.ts',
        'the-composition-root-loads-the-sandbox-on-demand: src/app/processes.ts -> src/dev/sandbox.ts',
        'the-ledger-contract-stands-on-the-platform: src/ledger/upward.ts -> src/config/setting.ts',
      ].sort(),
    );
  });
});
