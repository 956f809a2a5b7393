import net from 'node:net';

export interface RawResponse {
  status: number;
  /** Lower-cased names. */
  headers: Record<string, string>;
  body: any;
}

function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { status: Number(statusLine.split(' ')[1]), headers };
}

/**
 * Sends raw bytes on one connection, each string of `chunks` as its own write after `gapMs` (so
 * the server reads them separately), and reads responses (Content-Length framed, JSON bodies)
 * until `expected` have come or the server closes the connection.
 */
export function rawExchange(
  port: number,
  chunks: string | string[],
  expected: number,
  gapMs = 40,
): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.setNoDelay(true);
    let buffer = Buffer.alloc(0);
    const responses: RawResponse[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd === -1) break;
        const { status, headers } = parseHead(buffer.subarray(0, headEnd).toString('latin1'));
        const length = Number(headers['content-length'] ?? 0);
        if (buffer.length < headEnd + 4 + length) break;
        const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        responses.push({ status, headers, body: JSON.parse(body) });
        buffer = buffer.subarray(headEnd + 4 + length);
      }
      if (responses.length === expected) socket.end();
    });
    socket.on('close', () => resolve(responses));
    const parts = typeof chunks === 'string' ? [chunks] : chunks;
    void (async () => {
      for (const [i, part] of parts.entries()) {
        if (i > 0) await new Promise((r) => setTimeout(r, gapMs));
        if (!socket.destroyed) socket.write(part);
      }
    })();
  });
}
