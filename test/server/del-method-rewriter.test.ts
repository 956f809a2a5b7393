import fc from 'fast-check';
import { DelMethodRewriter } from '../../src/server/del-method-rewriter';

function run(chunks: string[]): string {
  const rewriter = new DelMethodRewriter();
  return chunks
    .flatMap((c) => rewriter.push(Buffer.from(c, 'latin1')))
    .map((b) => b.toString('latin1'))
    .join('');
}

describe('DelMethodRewriter', () => {
  it('rewrites the DEL request line to DELETE', () => {
    expect(run(['DEL /teams/members HTTP/1.1\r\nHost: x\r\n\r\n'])).toBe(
      'DELETE /teams/members HTTP/1.1\r\nHost: x\r\n\r\n',
    );
  });

  it('leaves other methods and methods that merely start with DEL alone', () => {
    const input =
      'DELETE /a HTTP/1.1\r\nHost: x\r\n\r\nGET /b HTTP/1.1\r\nHost: x\r\n\r\nDELX /c HTTP/1.1\r\n\r\n';
    expect(run([input])).toBe(input);
  });

  it('never touches body bytes, even a body that looks like a DEL request', () => {
    const body = 'DEL /x HTTP/1.1\r\n\r\n';
    const input = `POST /a HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}DEL /b HTTP/1.1\r\n\r\n`;
    expect(run([input])).toBe(
      `POST /a HTTP/1.1\r\nContent-Length: ${body.length}\r\n\r\n${body}DELETE /b HTTP/1.1\r\n\r\n`,
    );
  });

  it('follows chunked bodies to the next request', () => {
    const input =
      'DEL /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n4\r\nDEL \r\n5;ext=1\r\n/x HT\r\n0\r\nX-Trailer: 1\r\n\r\nDEL /b HTTP/1.1\r\n\r\n';
    expect(run([input])).toBe(input.replace('DEL /a', 'DELETE /a').replace('DEL /b', 'DELETE /b'));
  });

  it('gives the same bytes however the stream is split', () => {
    const body = '{"member_id":"DEL 1"}';
    const input =
      `DEL /teams/members HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}` +
      'DEL /a HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nDEL\r\n0\r\n\r\n\r\nDEL /c HTTP/1.1\r\n\r\n';
    const expected = run([input]);
    expect(expected.match(/DELETE /g)).toHaveLength(3);
    fc.assert(
      fc.property(
        fc.uniqueArray(fc.integer({ min: 1, max: input.length - 1 }), { maxLength: 12 }),
        (cuts) => {
          const points = [0, ...cuts.sort((a, b) => a - b), input.length];
          const chunks = points.slice(1).map((end, i) => input.slice(points[i], end));
          expect(run(chunks)).toBe(expected);
        },
      ),
    );
  });

  it('passes a head on as it arrives, holding back only a start that may still become "DEL "', () => {
    const rewriter = new DelMethodRewriter();
    const push = (text: string): string =>
      rewriter
        .push(Buffer.from(text, 'latin1'))
        .map((b) => b.toString('latin1'))
        .join('');
    expect(push('GET /a HTTP/1.1\r\nHo')).toBe('GET /a HTTP/1.1\r\nHo');
    expect(push('st: x\r\n\r\nD')).toBe('st: x\r\n\r\n');
    expect(push('E')).toBe('');
    expect(push('L')).toBe('');
    expect(push(' /b HTTP/1.1\r\nX-Slow: ')).toBe('DELETE /b HTTP/1.1\r\nX-Slow: ');
    expect(push('1\r\n')).toBe('1\r\n');
    expect(rewriter.rest().toString('latin1')).toBe('');
    expect(push('\r\nDE')).toBe('\r\n');
    expect(rewriter.rest().toString('latin1')).toBe('DE');
  });

  it('passes through what it cannot frame', () => {
    const input = 'POST /a HTTP/1.1\r\nContent-Length: abc\r\n\r\nDEL /b HTTP/1.1\r\n\r\n';
    expect(run([input])).toBe(input);
  });
});
