/**
 * The bench's one table: a row per family and figure, each with the reference measured in the
 * same run and ending in their ratio, written `ratio 0.62`. A ratio is always "higher is
 * better" and 1 means "as good as the reference": a rate over the reference's rate, or the
 * reference's time over ours. A figure with no reference in the run (memory) ends in `ratio –`.
 */

export interface Row {
  /** `Ethereum`, `Bitcoin`, `Stellar`, `Solana`, or `service` for what no family owns. */
  family: string;
  figure: string;
  value: string;
  reference: string;
  /** What else the row's phase found: checks, CPU, counts, and its target met or missed. */
  notes: string;
  ratio?: number;
}

export const ratioText = (ratio: number | undefined): string =>
  ratio === undefined || !Number.isFinite(ratio) ? 'ratio –' : `ratio ${(Math.round(ratio * 100) / 100).toFixed(2)}`;

/** `met` or `MISSED`, for a row's notes. */
export const verdict = (ok: boolean): string => (ok ? 'met' : 'MISSED');

/** The table as Markdown-style lines, columns padded: family, figure, value, reference, notes, ratio last. */
export function formatTable(rows: Row[]): string[] {
  const cells = rows.map((r) => [r.family, r.figure, r.value, r.reference, r.notes, ratioText(r.ratio)]);
  const head = ['family', 'figure', 'value', 'reference', 'notes', 'ratio'];
  const widths = head.map((h, i) => Math.max(h.length, ...cells.map((c) => (c[i] as string).length)));
  const line = (c: string[]) => `| ${c.map((x, i) => x.padEnd(widths[i] as number)).join(' | ')} |`;
  return [line(head), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)];
}
