import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { families } from '../../adaptors/index.js';
import { ENV, type EnvEntry } from '../../src/config/env-spec.js';
import { interpolate, parseDotenv } from './compose.js';

/**
 * .env.example, docs/configuration.md and docs/ledgers.md against what the code declares: the
 * configuration spec (src/config/env-spec.ts) and the ledger families' built-in ids.
 */

const exampleText = readFileSync('.env.example', 'utf8');
const example = parseDotenv(exampleText);
const spec = new Map<string, EnvEntry>(Object.values(ENV).map((e: EnvEntry) => [e.env, e]));
const builtInIds = families.flatMap((f) => f.knownLedgers);

/** Spec variables .env.example leaves out on purpose, and why. */
const NOT_FOR_COMPOSE: Record<string, string> = {
  SANDBOX: 'docker-compose.yml sets it to false for both processes: not the operator’s choice there',
  SANDBOX_API_KEY: 'the sandbox profile only, which compose never runs',
  SANDBOX_CUSTODY_PORT: 'the sandbox profile only, which compose never runs',
  SANDBOX_CUSTODY_PASSWORD: 'the sandbox profile only, which compose never runs',
};

/** The dev profile's custody emulator reads its own variables; compose gives their defaults. */
const isEmulatorVariable = (name: string) => name.startsWith('CUSTODY_EMULATOR_');

/**
 * Each group of variables in .env.example (consecutive `NAME=` lines) with the bracketed texts
 * of the comment right above it, paired in order: `# ... [1000], failed ones [5000].` above
 * RETAIN_COMPLETED_JOBS and RETAIN_FAILED_JOBS gives each its own.
 */
function exampleBrackets(): Map<string, string | undefined> {
  const lines = exampleText.split('\n');
  const out = new Map<string, string | undefined>();
  for (let i = 0; i < lines.length;) {
    if (!/^[A-Z0-9_]+=/.test(lines[i]!)) {
      i++;
      continue;
    }
    const names: string[] = [];
    const start = i;
    while (i < lines.length && /^[A-Z0-9_]+=/.test(lines[i]!)) names.push(lines[i++]!.split('=')[0]!);
    const comment: string[] = [];
    for (let j = start - 1; j >= 0 && lines[j]!.startsWith('#'); j--) comment.unshift(lines[j]!.replace(/^#\s?/, ''));
    // Indented comment lines are commands to copy (`node -e ...`), not prose with defaults.
    const prose = comment.filter((l) => !/^\s/.test(l));
    const brackets = [...prose.join(' ').matchAll(/\[([^\]]+)\]/g)].map((m) => m[1]!);
    names.forEach((n, k) => out.set(n, brackets[k]));
  }
  return out;
}

/** The value a bracket or a table cell states: its first word (`[0 = time only]` states 0). */
const statedValue = (text: string) => /^[^\s;,]+/.exec(text.trim())?.[0];

describe('.env.example against the configuration spec', () => {
  const brackets = exampleBrackets();

  it('lists every variable of the spec, except those not meant for compose, and no other', () => {
    for (const name of spec.keys()) {
      if (name in NOT_FOR_COMPOSE) expect(example, `${name} is listed as not for compose`).not.toHaveProperty(name);
      else expect(example, `${name} in .env.example`).toHaveProperty(name);
    }
    for (const name of Object.keys(example)) expect(spec.has(name) || isEmulatorVariable(name), `${name} is in the spec`).toBe(true);
  });

  it('shows, in brackets, the default the spec gives each variable it leaves empty', () => {
    for (const [name, value] of Object.entries(example)) {
      const entry = spec.get(name);
      if (!entry || value !== '') continue;
      const shown = brackets.get(name);
      if (entry.default !== undefined) {
        expect(shown, `${name}: a [default] in its comment`).toBeDefined();
        expect(statedValue(shown!), `${name}'s default in .env.example`).toBe(entry.default);
      } else if (shown !== undefined) {
        // No fixed default (it depends on the profile or the machine): the bracket explains
        // rather than stating one value.
        expect(shown === 'none' || /\s/.test(shown), `${name}: [${shown}] states a default the spec does not have`).toBe(true);
      }
    }
  });

  it("shows the dev profile emulator's defaults as docker-compose.yml gives them", () => {
    const compose = readFileSync('docker-compose.yml', 'utf8');
    for (const name of Object.keys(example).filter(isEmulatorVariable)) {
      // The default as compose gives it when .env leaves everything empty (a nested `${PORT:-8080}` at its own default).
      const expression = new RegExp(`\\$\\{${name}:-((?:[^{}]|\\$\\{[^}]*\\})*)\\}`).exec(compose)?.[1];
      const fallback = expression === undefined ? undefined : interpolate(expression, {});
      const shown = brackets.get(name);
      if (fallback === undefined) expect(shown, `${name} has no default in docker-compose.yml`).toBeUndefined();
      else expect(shown && statedValue(shown), `${name}'s default in .env.example`).toBe(fallback);
    }
  });

  it("lists the families' built-in ledger ids", () => {
    const m = /Built-in ids:([^;]*);/.exec(exampleText.replace(/\n#\s?/g, ' '));
    expect(m, 'the Built-in ids sentence of .env.example').not.toBeNull();
    expect(m![1]!.split(',').map((s) => s.trim())).toEqual(builtInIds);
  });
});

describe('docs/configuration.md against the configuration spec', () => {
  const doc = readFileSync('docs/configuration.md', 'utf8');
  /** The table's rows: `| \`A\` / \`B\` | default | secret | meaning |`. */
  const rows = doc
    .split('\n')
    .filter((l) => /^\| `[A-Z0-9_]+`/.test(l))
    .map((l) => {
      const [vars, def] = l
        .split(/(?<!\\)\|/)
        .slice(1, 3)
        .map((c) => c.trim()) as [string, string];
      return { names: [...vars.matchAll(/`([A-Z0-9_]+)`/g)].map((m) => m[1]!), def };
    });

  /** Spec variables without a default whose table cell names something else in backticks, and why. */
  const DEFAULT_NOT_A_VALUE: Record<string, string> = {
    SANDBOX_CUSTODY_PASSWORD: 'the cell names the file the generated password is kept in',
  };

  it('has one row for every variable of the spec, and none for others', () => {
    expect(rows.flatMap((r) => r.names).sort()).toEqual([...spec.keys()].sort());
  });

  it("gives each variable the spec's default", () => {
    for (const { names, def } of rows) {
      const values = [...def.matchAll(/`([^`]*)`/g)].map((m) => m[1]!);
      names.forEach((name, k) => {
        const entry = spec.get(name)!;
        if (entry.default !== undefined) expect(values[k], `${name}'s default in docs/configuration.md`).toBe(entry.default);
        else if (!(name in DEFAULT_NOT_A_VALUE)) expect(def.startsWith('`'), `${name}: ${def} states a default the spec does not have`).toBe(false);
      });
    }
  });
});

describe('docs/ledgers.md against the ledger families', () => {
  it("lists each family's built-in ids", () => {
    const doc = readFileSync('docs/ledgers.md', 'utf8');
    for (const f of families) {
      const row = doc.split('\n').find((l) => l.startsWith(`| \`${f.family}\` |`));
      expect(row, `a row for ${f.family} in docs/ledgers.md`).toBeDefined();
      const ids = row!.split('|')[2]!;
      expect(
        [...ids.matchAll(/`([a-z0-9]+)`/g)].map((m) => m[1]),
        `${f.family}'s built-in ids`,
      ).toEqual(f.knownLedgers);
    }
  });
});
