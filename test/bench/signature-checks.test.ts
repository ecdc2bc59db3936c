import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { CALLBACK_SHAPES, prepareCallbacks, signatureChecksCpuMs } from '../../bench/fixtures.js';
import { checksBound } from '../../bench/figures.js';
import type { OperationStore } from '../../src/withdrawals/store/operation-store.js';

// prepareCallbacks stores each operation; these tests read only the callbacks it writes.
const noStore = { create: async () => undefined } as unknown as OperationStore;

describe('the bench: what the signature checks alone cost a callback', () => {
  it('times the checks of every entry as the receiver makes them, and refuses a callback that does not verify', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'checks-'));
    onTestFinished(() => rmSync(dir, { recursive: true, force: true }));
    for (const family of ['bitcoin', 'solana'] as const) {
      const shape = CALLBACK_SHAPES[family];
      const file = path.join(dir, `${family}.jsonl`);
      await prepareCallbacks(noStore, shape, 20, file, family);
      const ms = signatureChecksCpuMs(file, shape.scheme);
      expect(ms).toBeGreaterThan(0);
      expect(Number.isFinite(ms)).toBe(true);
      // One signature changed: the check the receiver would refuse the callback with.
      const [first, ...rest] = readFileSync(file, 'utf8').split('\n');
      const body = JSON.parse(first as string) as { signatures: string[] };
      body.signatures[0] = `${(body.signatures[0] as string).slice(0, -2)}${(body.signatures[0] as string).endsWith('00') ? '01' : '00'}`;
      writeFileSync(file, [JSON.stringify(body), ...rest].join('\n'));
      expect(() => signatureChecksCpuMs(file, shape.scheme)).toThrow(/does not verify|out of range/);
    }
  });

  it('gives the CPU ratio a receiver would reach doing the echo’s work and the checks, nothing else', () => {
    expect(checksBound(0.101, 0.07)).toBe("signature checks alone 0.07 ms; the echo's work and the checks, nothing else: CPU ratio 0.59");
    expect(checksBound(0.05, 0.2)).toMatch(/CPU ratio 0\.2$/);
  });
});
