import { BadUserInputError } from '../../src/errors';
import { decodeMemberCursor, encodeMemberCursor } from '../../src/services/member-cursor';

describe('member cursors', () => {
  it('round-trips a member id through an opaque url-safe string', () => {
    const id = '3f2c9a4e-1b7d-4c1e-9f00-0a1b2c3d4e5f';
    const cursor = encodeMemberCursor(id);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(cursor).not.toContain(id);
    expect(decodeMemberCursor(cursor, 'cursor')).toBe(id);
  });

  it('rejects what no page handed out, naming the input it came in', () => {
    for (const bad of [
      '',
      'not base64!',
      Buffer.from('x:other').toString('base64url'),
      Buffer.from('m:').toString('base64url'),
    ]) {
      let caught: unknown;
      try {
        decodeMemberCursor(bad, 'after');
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(BadUserInputError);
      expect((caught as BadUserInputError).fieldErrors).toEqual([
        {
          field: 'after',
          message: 'expected a cursor returned by a previous page (next_cursor / endCursor)',
        },
      ]);
    }
  });
});
