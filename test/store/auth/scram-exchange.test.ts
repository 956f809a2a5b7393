import { deriveScramCredential } from '../../../src/store/auth/scram-credential';
import { parseClientFirst, ScramExchange } from '../../../src/store/auth/scram-exchange';

// The SCRAM-SHA-256 example exchange of RFC 7677 §3.
const RFC = {
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  serverFirst:
    'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal:
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

const credential = deriveScramCredential('user', 'pencil', {
  iterations: 4096,
  salt: Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'),
});
const exchange = (): ScramExchange =>
  new ScramExchange(parseClientFirst(Buffer.from(RFC.clientFirst)), credential, RFC.serverNonce);

describe('SCRAM-SHA-256 exchange (server side)', () => {
  it('answers the RFC 7677 example exactly', () => {
    const scram = exchange();
    expect(scram.serverFirst).toBe(RFC.serverFirst);
    expect(scram.verify(Buffer.from(RFC.clientFinal))).toBe(RFC.serverFinal);
  });

  it('fails a wrong proof, a changed nonce and a changed channel binding with "Authentication failed." (18)', () => {
    const failures = [
      RFC.clientFinal.replace('p=dHzb', 'p=dHzc'),
      RFC.clientFinal.replace('$k0,', '$k1,'),
      RFC.clientFinal.replace('c=biws', 'c=eSws'),
      RFC.clientFinal.replace(/,p=.*$/, ''),
      RFC.clientFinal.replace(/p=.*$/, 'p=AAAA'),
    ];
    for (const message of failures) {
      expect(() => exchange().verify(Buffer.from(message))).toThrow(
        expect.objectContaining({ code: 18, message: 'Authentication failed.' }),
      );
    }
  });

  it('parses user names with escaped "," and "=", and refuses malformed first messages', () => {
    expect(parseClientFirst(Buffer.from('n,,n=a=2Cb=3Dc,r=abc'))).toMatchObject({
      user: 'a,b=c',
      nonce: 'abc',
      gs2Header: 'n,,',
      bare: 'n=a=2Cb=3Dc,r=abc',
    });
    expect(parseClientFirst(Buffer.from('y,a=u,n=u,r=x')).user).toBe('u');
    const malformed = [
      'p=tls-unique,,n=u,r=x', // channel binding required: not offered
      'n,a=other,n=u,r=x', // authzid of another user
      'n,,m=ext,n=u,r=x', // mandatory extension
      'n,,n=a=2Xb,r=x', // bad escape
      'n,,n=,r=x',
      'n,,n=u,r=',
      'n,,n=u',
      'garbage',
    ];
    for (const message of malformed) {
      expect(() => parseClientFirst(Buffer.from(message))).toThrow(
        expect.objectContaining({ code: 18 }),
      );
    }
    expect(() =>
      parseClientFirst(Buffer.from([0x6e, 0x2c, 0x2c, 0x6e, 0x3d, 0xff, 0x2c, 0x72, 0x3d, 0x78])),
    ).toThrow(expect.objectContaining({ code: 18 }));
  });

  it('derives a credential without keeping the password, SASLprep applied as the driver does', () => {
    const derived = deriveScramCredential('u', 'pass\u00A0word', { salt: Buffer.alloc(28, 1) });
    // SASLprep maps the no-break space to a plain space.
    expect(deriveScramCredential('u', 'pass word', { salt: Buffer.alloc(28, 1) })).toEqual(derived);
    expect(Object.keys(derived).sort()).toEqual([
      'iterations',
      'salt',
      'serverKey',
      'storedKey',
      'user',
    ]);
    expect(derived.iterations).toBe(15000);
    expect(() => deriveScramCredential('u', 'p', { iterations: 1000 })).toThrow(
      'at least 4096, got 1000',
    );
    expect(() => deriveScramCredential('u', '')).toThrow('must not be empty');
  });
});
