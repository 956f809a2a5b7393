import { bearerToken } from '../../src/auth/authenticator';

describe('bearerToken', () => {
  it('takes the token of a Bearer header, whatever the case of the scheme and the blanks around it', () => {
    expect(bearerToken('Bearer abc.def.ghi')).toBe('abc.def.ghi');
    expect(bearerToken('bearer \t abc ')).toBe('abc');
    expect(bearerToken('BEARER x!~')).toBe('x!~');
  });

  it('finds no token in anything else', () => {
    for (const header of [
      undefined,
      null,
      42,
      ['Bearer abc'],
      '',
      'Bearer',
      'Bearer ',
      'Basic abc',
      'Bearer a b',
      'Bearer abc\u00e9',
      'Bearerabc',
    ]) {
      expect(bearerToken(header)).toBeNull();
    }
  });

  // It remembers the last header it parsed: that memory must never answer for another header.
  it('answers each header for itself when headers alternate or repeat', () => {
    const headers = [
      'Bearer one',
      'Bearer two',
      'Basic one',
      'Bearer one',
      'Bearer one',
      'bearer two ',
      'Bearer',
    ];
    const expected = ['one', 'two', null, 'one', 'one', 'two', null];
    for (let round = 0; round < 3; round++) {
      headers.forEach((header, i) => expect(bearerToken(header)).toBe(expected[i]));
      expect(bearerToken(undefined)).toBeNull();
      // A new string with the same text is the same header.
      expect(bearerToken(['Bearer', 'one'].join(' '))).toBe('one');
    }
  });
});
