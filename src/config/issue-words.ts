import type { z } from 'zod';

/**
 * Zod's default messages ("expected number, received NaN", "Unrecognized key") speak to a
 * programmer; a configuration error must tell an operator what to write instead. This error
 * map is passed to every configuration parse. It never quotes the offending value: options
 * such as RPC URLs carry keys, and the messages go to a log. Messages written in a schema
 * itself (a refine's text) take precedence over it.
 */
export const configErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case 'invalid_type':
      if (issue.input === undefined) return 'is required';
      return `must be ${article(NOUNS[issue.expected] ?? issue.expected)}`;
    case 'invalid_value':
      return `must be one of ${issue.values.map((v) => String(v)).join(', ')}`;
    case 'too_small':
      if (NUMERIC.includes(issue.origin)) return `must be at least ${String(issue.minimum)}`;
      return Number(issue.minimum) === 1 ? 'must not be empty' : `must have at least ${count(issue.minimum, issue.origin)}`;
    case 'too_big':
      return NUMERIC.includes(issue.origin) ? `must be at most ${String(issue.maximum)}` : `must have at most ${count(issue.maximum, issue.origin)}`;
    case 'unrecognized_keys':
      return unknownKeysMessage(issue.keys, shapeKeys(issue.inst));
    case 'invalid_key':
      return `has an invalid name: ${issue.issues.map((i) => i.message).join('; ')}`;
    case 'invalid_format':
      return issue.format === 'regex' ? 'has the wrong form' : `must be a valid ${issue.format}`;
    default:
      return undefined;
  }
};

const NOUNS: Record<string, string> = { int: 'whole number', record: 'object' };
const NUMERIC = ['number', 'int', 'bigint'];

function count(n: number | bigint, origin: string): string {
  const [one, many] = origin === 'string' ? ['character', 'characters'] : ['entry', 'entries'];
  return `${String(n)} ${Number(n) === 1 ? one : many}`;
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}

/** The option names of the object schema that raised an issue. */
export function shapeKeys(inst: unknown): string[] {
  const shape = (inst as { _zod?: { def?: { shape?: Record<string, unknown> } } } | undefined)?._zod?.def?.shape;
  return shape ? Object.keys(shape) : [];
}

/** `unknown option 'confirmation' (did you mean 'confirmations'?). Valid options: …` */
export function unknownKeysMessage(keys: readonly string[], valid: readonly string[]): string {
  const named = keys.map((k) => {
    const near = closest(k, valid);
    return near ? `'${k}' (did you mean '${near}'?)` : `'${k}'`;
  });
  return `unknown option${keys.length > 1 ? 's' : ''} ${named.join(', ')}. Valid options: ${valid.join(', ')}`;
}

/** The valid name within two edits of a misspelt one (case ignored), if any. */
function closest(word: string, candidates: readonly string[]): string | undefined {
  let best: { name: string; d: number } | undefined;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d <= 2 && (!best || d < best.d)) best = { name: c, d };
  }
  return best?.name;
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) row[j] = Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = row;
  }
  return prev[b.length]!;
}

/** `tokens[0].contract` from a zod path. */
export function formatPath(path: readonly PropertyKey[]): string {
  return path.map((p, i) => (typeof p === 'number' ? `[${p}]` : `${i ? '.' : ''}${String(p)}`)).join('');
}

/** One line per issue: `<where>: <message>`, with the root named by `where` alone. */
export function describeIssues(where: string, issues: readonly z.core.$ZodIssue[]): string[] {
  return issues.map((issue) => {
    const path = formatPath(issue.path);
    const at = path ? `${where}${path.startsWith('[') ? '' : '.'}${path}` : where;
    return `${at}: ${issue.message}`;
  });
}
