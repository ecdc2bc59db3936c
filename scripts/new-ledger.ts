import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { format, resolveConfig } from 'prettier';
import { templates, type Names } from './new-ledger/templates.js';

/**
 * `npm run new-ledger -- <family>`: writes `adaptors/<family>/` (a LedgerFamily whose verbs
 * answer "not implemented", its options, node client and error table, logic files, test kit,
 * conformance test and local development node hook) and adds its one registration line to
 * `adaptors/index.ts`.
 */
export async function scaffoldLedger(root: string, family: string, takenIds: readonly string[] = []): Promise<string[]> {
  if (!/^[a-z][a-z0-9]{1,23}$/.test(family)) throw new Error(`family '${family}': use 2 to 24 lower-case letters or digits, starting with a letter`);
  // Its ledger ids (templates' ledgers.ts) must be its own: two families claiming one id would both answer it.
  const clash = [family, `${family}dev`].filter((id) => takenIds.includes(id));
  if (clash.length) throw new Error(`family '${family}': its ledger ids would clash with ids another family knows (${clash.join(', ')}); choose another name`);
  const names: Names = { family, camel: family };
  const dir = path.join(root, 'adaptors', family);
  if (existsSync(dir)) throw new Error(`adaptors/${family} already exists`);
  const registry = path.join(root, 'adaptors', 'index.ts');
  const source = readFileSync(registry, 'utf8');
  const importLine = `import { ${names.camel}Family } from './${family}/index.js';`;
  const entryLine = `  ${names.camel}Family as LedgerFamily,`;
  const end = source.lastIndexOf('];');
  const lastImport = source.lastIndexOf('\nimport ');
  if (end < 0 || lastImport < 0) throw new Error('adaptors/index.ts does not have the expected imports and families list');
  const afterImport = source.indexOf('\n', lastImport + 1) + 1;
  const updated = source.slice(0, afterImport) + `${importLine}\n` + source.slice(afterImport, end) + `${entryLine}\n` + source.slice(end);

  // Written as the project formats its code (`npm run lint` checks it), whatever the templates' layout.
  const style = (await resolveConfig(fileURLToPath(import.meta.url))) ?? {};
  const formatted = async (text: string) => format(text, { ...style, parser: 'typescript' });
  const written: string[] = [];
  for (const [file, text] of Object.entries(templates(names))) {
    const target = path.join(dir, file);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, await formatted(text));
    written.push(path.relative(root, target));
  }
  writeFileSync(registry, await formatted(updated));
  return written;
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const family = process.argv[2];
  try {
    if (!family) throw new Error('usage: npm run new-ledger -- <family>');
    const { families } = (await import(pathToFileURL(path.join(process.cwd(), 'adaptors', 'index.ts')).href)) as {
      families: { knownLedgers: readonly string[] }[];
    };
    const files = await scaffoldLedger(
      process.cwd(),
      family,
      families.flatMap((f) => f.knownLedgers),
    );
    process.stdout.write(
      `created:\n${files.map((f) => `  ${f}`).join('\n')}\nregistered in adaptors/index.ts\nnext: npx vitest run adaptors/${family}/conformance.test.ts\n`,
    );
  } catch (e) {
    process.stderr.write(`${(e as Error).message}\n`);
    process.exitCode = 1;
  }
}
