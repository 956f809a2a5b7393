import { BadUserInputError } from '../errors';

/**
 * Opaque pagination cursors: base64url of `<prefix>:<position>`. The prefix tells a snapshot
 * cursor (`s`), an opportunity cursor (`o`), a token cursor (`t`), a movement deal cursor (`m`),
 * a slipped deal cursor (`d`) and a forecast call cursor (`f`) apart, so a foreign one is a clear
 * 400.
 */
export type CursorKind = 's' | 'o' | 't' | 'm' | 'd' | 'f';

export function encodeCursor(kind: CursorKind, position: string): string {
  return Buffer.from(`${kind}:${position}`, 'utf8').toString('base64url');
}

/** The 400 for a cursor that no page of this kind returned. */
export function invalidCursor(cursor: string, field: string): BadUserInputError {
  const message = 'expected a cursor returned by a previous page (endCursor)';
  return new BadUserInputError(`Invalid ${field}: ${message}, got "${cursor.slice(0, 40)}"`, [
    { field, message },
  ]);
}

/** The position a cursor points after; `field` names the input for the 400 (`after`). */
export function decodeCursor(kind: CursorKind, cursor: string, field: string): string {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : '';
  if (!text.startsWith(`${kind}:`) || text.length === 2) throw invalidCursor(cursor, field);
  return text.slice(2);
}
