import { startGateway, type TestGateway } from '../helpers/gateway';
import { ok, type RouteDefinition } from '../../src/rest/route-definition';
import { EchoInput, TEST_ROUTES } from '../rest/platform/test-routes';
import { rawExchange, type RawResponse } from '../helpers/raw-http';
import { EVERY_ROLE } from '../../src/rest/route-roles';

// Answers after the requests pipelined behind it have been read.
const SLOW_ECHO: RouteDefinition<EchoInput> = {
  method: 'GET',
  path: '/test/slow-echo',
  summary: 'slow echo',
  tag: 'Test',
  authenticated: true,
  roles: EVERY_ROLE,
  input: EchoInput,
  response: {},
  handler: (_ctx, input) =>
    new Promise((resolve) =>
      setTimeout(() => resolve(ok('GET slowly echoed', { input: { ...input } })), 200),
    ),
};

describe('the DEL method on the wire', () => {
  let gw: TestGateway;
  let auth: string;
  beforeAll(async () => {
    gw = await startGateway({ extraRoutes: [...TEST_ROUTES, SLOW_ECHO] });
    auth = `Authorization: Bearer ${gw.adminToken}\r\n`;
  });
  afterAll(async () => {
    await gw.stop();
  });

  const jsonRequest = (method: string, path: string, body: string): string =>
    `${method} ${path} HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;

  it('routes a raw DEL request as DELETE', async () => {
    const [res] = await rawExchange(gw.port, jsonRequest('DEL', '/test/echo', '{"id":"m-1"}'), 1);
    expect(res).toMatchObject({
      status: 200,
      body: {
        message: 'DELETE echoed',
        success: true,
        statusCode: 200,
        input: { id: 'm-1', limit: 20 },
      },
    });
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
    const chunked =
      chunks.map((c) => `${Buffer.byteLength(c).toString(16)}\r\n${c}\r\n`).join('') + '0\r\n\r\n';
    const payload =
      `DEL /test/echo HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunked}` +
      `DEL /test/echo HTTP/1.1\r\nHost: x\r\n${auth}Content-Length: 0\r\n\r\n`;
    const responses = await rawExchange(gw.port, payload, 2);
    expect(responses[0]).toMatchObject({
      status: 200,
      body: { message: 'DELETE echoed', input: { name: 'DEL /a HTTP/1.1\r\n' } },
    });
    expect(responses[1]).toMatchObject({ status: 200, body: { message: 'DELETE echoed' } });
  });

  it('still answers DELETE, and 405 for DEL on a path without DELETE', async () => {
    const [del] = await rawExchange(gw.port, jsonRequest('DELETE', '/test/echo', '{}'), 1);
    expect(del.status).toBe(200);
    const [notAllowed] = await rawExchange(gw.port, `DEL /healthz HTTP/1.1\r\nHost: x\r\n\r\n`, 1);
    expect(notAllowed).toMatchObject({
      status: 405,
      body: {
        message: 'Method DELETE is not allowed on /healthz; allowed: GET, HEAD',
        success: false,
        statusCode: 405,
      },
    });
  });

  const get = (id: string): string => `GET /test/echo?id=${id} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  const del = (id: string): string => `DEL /test/echo?id=${id} HTTP/1.1\r\nHost: x\r\n${auth}\r\n`;
  const summary = (responses: RawResponse[]): unknown[] =>
    responses.map((r) => [r.status, r.body.message, r.body.input?.id]);

  it('recognises a DEL split between two reads, wherever the split falls in the method, once the connection has sent DEL', async () => {
    for (let split = 0; split <= 4; split++) {
      const second = del('s-2');
      const responses = await rawExchange(
        gw.port,
        [del('s-0') + get('s-1') + second.slice(0, split), second.slice(split)],
        3,
      );
      expect([split, ...summary(responses)]).toEqual([
        split,
        [200, 'DELETE echoed', 's-0'],
        [200, 'GET echoed', 's-1'],
        [200, 'DELETE echoed', 's-2'],
      ]);
    }
  });

  it('recognises the first DEL of a connection split between two reads after its method', async () => {
    for (const split of [0, 4]) {
      const second = del('s-2');
      const responses = await rawExchange(
        gw.port,
        [get('s-1') + second.slice(0, split), second.slice(split)],
        2,
      );
      expect([split, ...summary(responses)]).toEqual([
        split,
        [200, 'GET echoed', 's-1'],
        [200, 'DELETE echoed', 's-2'],
      ]);
    }
  });

  it('refuses the first DEL of a connection cut inside its method with a 400 envelope, never a guess', async () => {
    // Node read the start of the method natively: "DE" | "L" cannot be told from "UN" | "L".
    const cases: string[][] = [];
    for (let split = 1; split <= 3; split++) {
      const request = del('c-2');
      cases.push([request.slice(0, split), request.slice(split)]);
      cases.push([get('c-1') + request.slice(0, split), request.slice(split)]);
    }
    for (const chunks of cases) {
      const responses = await rawExchange(gw.port, chunks, 3);
      expect([chunks.join('|').slice(0, 30), ...summary(responses)]).toEqual([
        chunks.join('|').slice(0, 30),
        ...(chunks[0]!.startsWith('GET') ? [[200, 'GET echoed', 'c-1']] : []),
        [400, 'Malformed HTTP request: Invalid method encountered', undefined],
      ]);
    }
  });

  it('refuses methods that only look like DEL (split or not) with a 400 envelope, and closes the connection', async () => {
    const cases: string[][] = [
      [get('r-1') + 'UN', 'L /test/echo HTTP/1.1\r\nHost: x\r\n\r\n'], // "UNL", not "DEL", across the split
      [get('r-1') + 'D', ' /test/echo HTTP/1.1\r\nHost: x\r\n\r\n'],
      [get('r-1') + 'L /test/echo HTTP/1.1\r\nHost: x\r\n\r\n'],
      [get('r-1') + 'DELX /test/echo HTTP/1.1\r\nHost: x\r\n\r\n'],
      [get('r-1') + 'del /test/echo HTTP/1.1\r\nHost: x\r\n\r\n'],
    ];
    for (const chunks of cases) {
      const responses = await rawExchange(gw.port, chunks, 3);
      expect([chunks.join('|').slice(-40), ...summary(responses)]).toEqual([
        chunks.join('|').slice(-40),
        [200, 'GET echoed', 'r-1'],
        [400, 'Malformed HTTP request: Invalid method encountered', undefined],
      ]);
      expect(responses[1]!.body).toEqual({
        message: 'Malformed HTTP request: Invalid method encountered',
        success: false,
        statusCode: 400,
      });
    }
  });

  it('answers pipelined requests in order when a DEL follows a slower request', async () => {
    const responses = await rawExchange(
      gw.port,
      [`GET /test/slow-echo?id=p-1 HTTP/1.1\r\nHost: x\r\n${auth}\r\n` + del('p-2') + get('p-3')],
      3,
    );
    expect(summary(responses)).toEqual([
      [200, 'GET slowly echoed', 'p-1'],
      [200, 'DELETE echoed', 'p-2'],
      [200, 'GET echoed', 'p-3'],
    ]);
  });

  it('answers 150 pipelined requests, a third of them DEL, sent in small writes split anywhere', async () => {
    let seed = 7;
    const random = (n: number): number => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const requests = Array.from({ length: 150 }, (_, i) =>
      i % 3 === 1
        ? del(`b-${i}`)
        : i % 3 === 2
          ? jsonRequest('POST', '/test/echo', `{"id":"b-${i}"}`)
          : get(`b-${i}`),
    );
    const bytes = requests.join('');
    const chunks: string[] = [];
    for (let at = 0; at < bytes.length;) {
      const size = 1 + random(400);
      chunks.push(bytes.slice(at, at + size));
      at += size;
    }
    const responses = await rawExchange(gw.port, chunks, requests.length, 1);
    expect(summary(responses)).toEqual(
      requests.map((_, i) => [200, `${['GET', 'DELETE', 'POST'][i % 3]} echoed`, `b-${i}`]),
    );
  });

  it('deletes a member with DEL /teams/members', async () => {
    const team = await gw.request('POST', '/teams', {
      body: { team_id: 'team-del', name: 'Del team' },
    });
    expect(team.status).toBe(200);
    const created = await gw.request('POST', '/teams/members', {
      body: {
        lastname: 'Hopper',
        firstname: 'Grace',
        email: 'grace@example.com',
        role: 'member',
        memberOf: { team_id: 'team-del' },
      },
    });
    expect(created.status).toBe(200);
    const member = created.body.member;
    expect(member.member_id).toEqual(expect.any(String));
    const [res] = await rawExchange(
      gw.port,
      jsonRequest('DEL', '/teams/members', JSON.stringify({ member_id: member.member_id })),
      1,
    );
    expect(res).toMatchObject({
      status: 200,
      body: { message: `Member ${member.member_id} deleted`, success: true, statusCode: 200 },
    });
    const after = await gw.request('GET', `/teams/members/${member.member_id}`);
    expect(after.status).toBe(404);
  });
});
