import { describe, expect, it } from 'vitest';
import { formatTable, ratioText } from '../../bench/table.js';

describe('the bench table', () => {
  it('ends every row in its ratio against the reference, `ratio –` where the run has none', () => {
    const lines = formatTable([
      { family: 'Bitcoin', figure: 'drain, backlog (s)', value: '1.61', reference: 'bare client 1.00', notes: 'none twice met', ratio: 0.6211 },
      { family: 'Stellar', figure: 'drain, live (s)', value: '2.5', reference: 'bare client 2.5', notes: '', ratio: 1 },
      { family: 'service', figure: 'worker RSS (MB)', value: '120', reference: '–', notes: '' },
    ]);
    expect(lines[0]).toMatch(/^\| family +\| figure .*\| ratio +\|$/);
    const body = lines.slice(2);
    expect(body[0]).toMatch(/^\| Bitcoin +\| drain, backlog \(s\) .*\| ratio 0\.62 \|$/);
    expect(body[1]).toMatch(/\| Stellar .*\| ratio 1\.00 \|$/);
    expect(body[2]).toMatch(/\| service .*\| ratio – +\|$/);
    // Columns line up: every line as long as the header.
    expect(new Set(lines.map((l) => l.length)).size).toBe(1);
  });

  it('writes an unmeasurable ratio as none rather than NaN or Infinity', () => {
    expect(ratioText(NaN)).toBe('ratio –');
    expect(ratioText(Infinity)).toBe('ratio –');
    expect(ratioText(0.499)).toBe('ratio 0.50');
  });
});
