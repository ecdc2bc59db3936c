import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { AppError } from '../../src/platform/errors.js';
import { defineStateCodec, StoredStateError } from '../../src/ledger/state-codec.js';

const codec = defineStateCodec(
  'Example',
  z.object({ sequence: z.string().regex(/^\d+$/), creates: z.string().nullable(), feeBump: z.literal('true').optional() }).strict(),
);

describe('defineStateCodec', () => {
  it('round-trips a state through its stored JSON text', () => {
    const state = { sequence: '12345678901234567890', creates: null };
    const stored = JSON.parse(JSON.stringify(codec.encode(state)));
    expect(codec.decode(stored)).toEqual(state);
  });

  it('stores no undefined fields', () => {
    expect(codec.encode({ sequence: '1', creates: 'G', feeBump: undefined })).toEqual({ sequence: '1', creates: 'G' });
  });

  it('a stored state that does not match is a final StoredStateError naming each mismatch', () => {
    for (const bad of [null, 'text', { sequence: 1, creates: null }, { sequence: '1' }, { sequence: '1', creates: null, extra: true }]) {
      let caught: unknown;
      try {
        codec.decode(bad);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(StoredStateError);
      const e = caught as AppError;
      expect(e).toBeInstanceOf(AppError);
      expect(e.retryable).toBe(false);
      expect(e.errCode).toBe('ERR_BAD_STATE');
      expect(e.details).toMatch(/^the stored state is not a Example withdrawal state \(/);
      expect(e.fields.family).toBe('Example');
      expect((e.fields.issues as string[]).length).toBeGreaterThan(0);
    }
    const e = (() => {
      try {
        return codec.decode({ sequence: 'x', creates: null });
      } catch (err) {
        return err as AppError;
      }
    })() as AppError;
    expect(e.fields.issues).toEqual([expect.stringMatching(/^sequence: /)]);
  });

  it('refuses to encode a state it could not read back', () => {
    expect(() => codec.encode({ sequence: '-1', creates: null })).toThrow(StoredStateError);
  });

  it('refuses a stored state whose expected fields hold other values, naming the field', () => {
    const stored = codec.encode({ sequence: '7', creates: 'GA' });
    expect(codec.decode(stored, { creates: 'GA' })).toEqual({ sequence: '7', creates: 'GA' });
    let caught: unknown;
    try {
      codec.decode(stored, { creates: 'GB' });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(StoredStateError);
    const e = caught as AppError;
    expect(e.retryable).toBe(false);
    expect(e.fields.issues).toEqual(['creates: "GA", expected "GB"']);
  });
});
