import { BadUserInputError } from '../errors';

/**
 * Opaque pagination cursors over members listed in `_id` order: base64url of `m:<last id>`.
 * Clients must treat them as opaque; the prefix lets a malformed or foreign cursor be told apart.
 */
const PREFIX = 'm:';

export function encodeMemberCursor(memberId: string): string {
  return Buffer.from(`${PREFIX}${memberId}`, 'utf8').toString('base64url');
}

/** The member id a cursor points after; `field` names the input for the 400 (`cursor`, `after`). */
export function decodeMemberCursor(cursor: string, field: string): string {
  const text = /^[A-Za-z0-9_-]+$/.test(cursor)
    ? Buffer.from(cursor, 'base64url').toString('utf8')
    : '';
  if (!text.startsWith(PREFIX) || text.length === PREFIX.length) {
    throw new BadUserInputError(
      `Invalid ${field}: expected a cursor returned by a previous page, got "${cursor.slice(0, 40)}"`,
      [
        {
          field,
          message: 'expected a cursor returned by a previous page (next_cursor / endCursor)',
        },
      ],
    );
  }
  return text.slice(PREFIX.length);
}
