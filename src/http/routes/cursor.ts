import { InvalidArgumentError } from '../../platform/errors.js';

/** Position in a newest-first list: creation time and id of the last item of a page. Opaque to clients. */
export interface Cursor {
  ms: number;
  id: string;
}

export function encodeCursor(c: Cursor): string {
  return Buffer.from(`${c.ms}|${c.id}`).toString('base64url');
}

export function decodeCursor(text: string): Cursor {
  const m = /^(\d{1,16})\|(.{1,200})$/.exec(Buffer.from(text, 'base64url').toString('utf8'));
  if (!m) throw new InvalidArgumentError(`cursor '${text}' is not a cursor this API gave out; pass nextCursor of the previous page`, { field: 'cursor' });
  return { ms: Number(m[1]), id: m[2] as string };
}
