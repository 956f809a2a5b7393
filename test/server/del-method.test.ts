import net from 'node:net';
import { startGateway, type TestGateway } from '../helpers/gateway';
import { TEST_ROUTES } from '../rest/platform/test-routes';

interface RawResponse {
  status: number;
  body: any;
}

/** Sends raw bytes on one connection and reads `expected` responses (Content-Length framed). */
function rawExchange(port: number, payload: string, expected: number): Promise<RawResponse[]> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    let buffer = Buffer.alloc(0);
    const responses: RawResponse[] = [];
    socket.on('error', reject);
    socket.on('data', (chunk) => {
      buffer = Buffer.concat([buffer, chunk]);
      for (;;) {
        const headEnd = buffer.indexOf('\r\n\r\n');
        if (headEnd === -1) break;
        const head = buffer.subarray(0, headEnd).toString('latin1');
        const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
        if (buffer.length < headEnd + 4 + length) break;
        const body = buffer.subarray(headEnd + 4, headEnd + 4 + length).toString('utf8');
        responses.push({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
        buffer = buffer.subarray(headEnd + 4 + length);
      }
      if (responses.length === expected) {
        socket.end();
        resolve(responses);
      }
    });
    socket.on('close', () => {
      if (responses.length < expected) reject(new Error(`connection closed after ${responses.length} of ${expected} responses`));
    });
    socket.write(payload);
  });
}

describe('the DEL method on the wire', () => {
  let gw: TestGateway;
  let auth: string;
  beforeAll(async () => {
    gw = await startGateway({ extraRoutes: TEST_ROUTES });
    auth = `Authorization: Bearer ${gw.adminToken}\r\n`;
  });
  afterAll(async () => {
    await gw.stop();
  });

  const jsonRequest = (method: string, path: string, body: string): string =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  it('routes a raw DEL request as DELETE', async () => {
    const [res] = await rawExchange(gw.port, jsonRequest('DEL', '/test/echo', '{"id":"m-1"}'), 1);
    expect(res).toEqual({ status: 200, body: { message: 'DELETE echoed', success: true, statusCode: 200, input: { id: 'm-1', limit: 20 } } });
  });

  it('handles pipelined requests on one keep-alive connection, with a body containing "DEL "', async () => {
    const payload =
      jsonRequest('DEL', '/test/echo', '{"name":"DEL /test/echo HTTP/1.1"}') +
      jsonRequest('POST', '/test/echo', '{"name":"\\r\\n\\r\\nDEL /x HTTP/1.1\\r\\n"}') +
      `DEL /test/echo?id=q-1 HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
    const responses = await rawExchange(gw.port, payload, 3);
    expect(responses.map((r) => [r.status, r.body.message])).toEqual([
      [200, 'DELETE echoed'],
      [200, 'POST echoed'],
      [200, 'DELETE echoed'],
    ]);
    expect(responses[0].body.input.name).toBe('DEL /test/echo HTTP/1.1');
    expect(responses[1].body.input.name).toBe('\r\n\r\nDEL /x HTTP/1.1\r\n');
    expect(responses[2].body.input.id).toBe('q-1');
  });

  it('follows a chunked body to the next request', async () => {
    const chunks = ['{"name":"DEL ', '/a HTTP/1.1\\r\\n"}'];
    const chunked = chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n';
    const payload =
      `DEL /test/echo HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}` +
      `DEL /test/echo HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 0\r\n\r\n`;
    const responses = await rawExchange(gw.port, payload, 2);
    expect(responses[0]).toMatchObject({ status: 200, body: { message: 'DELETE echoed', input: { name: 'DEL /a HTTP/1.1\r\n' } } });
    expect(responses[1]).toMatchObject({ status: 200, body: { message: 'DELETE echoed' } });
  });

  it('still answers DELETE, and 405 for DEL on a path without DELETE', async () => {
    const [del] = await rawExchange(gw.port, jsonRequest('DELETE', '/test/echo', '{}'), 1);
    expect(del.status).toBe(200);
    const [notAllowed] = await rawExchange(gw.port, `DEL /healthz HTTP/1.1\r\nHost: x\r\n\r\n`, 1);
    expect(notAllowed).toEqual({ status: 405, body: { message: 'Method DELETE is not allowed on /healthz; allowed: GET, HEAD', success: false, statusCode: 405 } });
  });

  it('deletes a member with DEL /teams/members', async () => {
    const team = await gw.request('POST', '/teams', { body: { team_id: 'team-del', name: 'Del team' } });
    expect(team.status).toBe(200);
    const created = await gw.request('POST', '/teams/members', {
      body: { lastname: 'Hopper', firstname: 'Grace', email: 'grace@example.com', role: 'member', memberOf: { team_id: 'team-del' } },
    });
    expect(created.status).toBe(200);
    const member = created.body.member;
    expect(member.member_id).toEqual(expect.any(String));
    const [res] = await rawExchange(gw.port, jsonRequest('DEL', '/teams/members', JSON.stringify({ member_id: member.member_id })), 1);
    expect(res).toEqual({ status: 200, body: { message: `Member ${member.member_id} deleted`, success: true, statusCode: 200 } });
    const after = await gw.request('GET', `/teams/members/${member.member_id}`);
    expect(after.status).toBe(404);
  });
});
