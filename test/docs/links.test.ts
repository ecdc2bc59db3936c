import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

/**
 * The README and the manual in docs/ link to each other: every relative link resolves to a file
 * that exists and, with an anchor, to a heading of that file (GitHub's slugs). Links to http(s)
 * and links inside fenced code blocks are not checked.
 */
const ROOT = resolve(import.meta.dirname, '../..');
const FILES = [
  join(ROOT, 'README.md'),
  ...readdirSync(join(ROOT, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => join(ROOT, 'docs', f)),
];

/** Lines outside fenced code blocks, with their 1-based numbers. */
function prose(markdown: string): { line: number; text: string }[] {
  const out: { line: number; text: string }[] = [];
  let fence: string | undefined;
  markdown.split('\n').forEach((text, i) => {
    const open = /^\s*(`{3,}|~{3,})/.exec(text)?.[1];
    if (open && (fence === undefined || open.startsWith(fence))) {
      fence = fence === undefined ? open : undefined;
      return;
    }
    if (fence === undefined) out.push({ line: i + 1, text });
  });
  return out;
}

/** GitHub's heading anchor: lower case, punctuation other than - and _ dropped, each space a -. */
function slug(heading: string): string {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/`/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M} _-]/gu, '')
    .replace(/ /g, '-');
}

/** Every anchor the file's headings make; a repeated slug gets -1, -2… */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  for (const { text } of prose(markdown)) {
    const m = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(text);
    if (!m) continue;
    const base = slug(m[1]!);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The relative links of a file: `[text](path)`, `[text](path#anchor)`, `[text](#anchor)`, outside code. */
function links(markdown: string): { line: number; target: string }[] {
  const out: { line: number; target: string }[] = [];
  for (const { line, text } of prose(markdown)) {
    const plain = text.replace(/(`+)[\s\S]*?\1/g, '');
    for (const m of plain.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      out.push({ line, target });
    }
  }
  return out;
}

/** One line per link that does not resolve: `file:line: [link] why`. */
function brokenLinks(files: string[]): string[] {
  const problems: string[] = [];
  for (const file of files) {
    const name = relative(ROOT, file);
    for (const { line, target } of links(readFileSync(file, 'utf8'))) {
      const [path, anchor] = target.split('#', 2) as [string, string | undefined];
      const dest = path === '' ? file : resolve(dirname(file), decodeURIComponent(path));
      const where = `${name}:${line}: (${target})`;
      if (!existsSync(dest)) {
        problems.push(`${where} ${relative(ROOT, dest)} does not exist`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      if (statSync(dest).isDirectory() || !dest.endsWith('.md')) {
        problems.push(`${where} an anchor into ${relative(ROOT, dest)}, which is not a markdown file`);
        continue;
      }
      if (!anchors(readFileSync(dest, 'utf8')).has(decodeURIComponent(anchor))) problems.push(`${where} ${relative(ROOT, dest)} has no heading #${anchor}`);
    }
  }
  return problems;
}

describe('the README and the manual in docs/', () => {
  it('have only links that resolve, anchors included', () => {
    expect(FILES.length).toBeGreaterThan(2);
    expect(brokenLinks(FILES)).toEqual([]);
  });

  it('make anchors as GitHub does', () => {
    expect([
      ...anchors(
        "# The operator's view of withdrawals\n## Memory: what held it\n## A `code` [link](x.md)\n```\n# not a heading\n```\n# Ledgers\n# Ledgers\n# Ledgers",
      ),
    ]).toEqual(['the-operators-view-of-withdrawals', 'memory-what-held-it', 'a-code-link', 'ledgers', 'ledgers-1', 'ledgers-2']);
    expect(links('[a](b.md#c) `[x](y.md)` [d](#e) [f](https://example.com/)\n```\n[g](h.md)\n```')).toEqual([
      { line: 1, target: 'b.md#c' },
      { line: 1, target: '#e' },
    ]);
  });

  it('keep the README a door: at most 250 lines', () => {
    const lines = readFileSync(join(ROOT, 'README.md'), 'utf8').replace(/\n$/, '').split('\n').length;
    expect(lines).toBeLessThanOrEqual(250);
  });
});
