import type { z } from 'zod';
import { AppError } from '../platform/errors.js';
import type { Json } from './adaptor.js';

/**
 * The adaptor state a family keeps inside `UnsignedWithdrawal.state`, checked by one zod
 * schema on the way in and on the way out. It goes to Redis at craft and comes back for
 * combine, release, broadcast, txStatus and replace, possibly after an upgrade: a stored state
 * that does not match the schema can never become the transaction that was approved.
 */

/**
 * The stored state of a withdrawal is not what its family can read (corrupted, edited, or
 * written by an incompatible version). Final: a retry reads the same bytes. 500, since the
 * service's own record is at fault, not the request.
 */
export class StoredStateError extends AppError {
  constructor(family: string, details: string, issues: string[] = []) {
    super(500, 'ERR_BAD_STATE', 'Unreadable withdrawal state', `${details}. The stored withdrawal cannot be signed or sent as it is.`, false, {
      fields: { family, issues },
    });
  }
}

export interface StateCodec<T> {
  /** Checks `state` against the schema and returns its JSON form (undefined fields dropped); a mismatch is a StoredStateError. */
  encode(state: T): Json;
  /**
   * Reads stored state back, or throws StoredStateError naming each mismatch. `expected` names
   * fields that must hold these exact values (a state crafted for `btctest` is not read by `btc`).
   */
  decode(stored: unknown, expected?: Partial<T>): T;
}

/** The decoded type of a codec: `type SolanaState = StateOf<typeof solanaState>`. */
export type StateOf<C> = C extends StateCodec<infer T> ? T : never;

function issuesOf(error: z.ZodError): string[] {
  return error.issues.map((i) => `${i.path.length ? i.path.join('.') : '(state)'}: ${i.message}`);
}

/**
 * A codec for one family's state. `family` names it in errors (`Solana`); `schema` must describe
 * JSON only (strings for bigints, no Dates), since the state is stored as JSON.
 */
export function defineStateCodec<S extends z.ZodType>(family: string, schema: S): StateCodec<z.output<S>> {
  const check = (value: unknown, what: string): z.output<S> => {
    const parsed = schema.safeParse(value);
    if (!parsed.success) {
      const issues = issuesOf(parsed.error);
      throw new StoredStateError(family, `${what} is not a ${family} withdrawal state (${issues.join('; ')})`, issues);
    }
    return parsed.data;
  };
  return {
    // Round-tripped through JSON text so that what is returned is exactly what decode will see.
    encode: (state) => JSON.parse(JSON.stringify(check(state, 'the crafted state'))) as Json,
    decode: (stored, expected = {}) => {
      const state = check(stored, 'the stored state');
      for (const [field, value] of Object.entries(expected)) {
        const found = (state as Record<string, unknown>)[field];
        if (found !== value) {
          const issue = `${field}: ${JSON.stringify(found)}, expected ${JSON.stringify(value)}`;
          throw new StoredStateError(family, `the stored state does not belong where it is read (${issue})`, [issue]);
        }
      }
      return state;
    },
  };
}
