// Internal test helper: a stand-in for the HubSpot endpoints docs/importing.md saves answers from
// (the three CRM v3 lists and the account's details), serving the recorded answers in
// test/fixtures/hubspot/messy (two deal pages).
import { readFileSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';

const FIXTURES = path.join(__dirname, '../fixtures/hubspot/messy');

export interface FakeHubSpot {
  port: number;
  /** Paths asked for, in order (with their query strings). */
  requests: string[];
  close(): Promise<void>;
}

function fixture(name: string): string {
  return readFileSync(path.join(FIXTURES, name), 'utf8');
}

/** Starts the stand-in on a free loopback port; it wants `Authorization: Bearer <anything>`. */
export async function startFakeHubSpot(): Promise<FakeHubSpot> {
  const requests: string[] = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://hubspot.test');
    requests.push(`${url.pathname}${url.search}`);
    const send = (status: number, body: string): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    };
    if (!/^Bearer \S+/.test(req.headers.authorization ?? ''))
      return send(401, '{"status":"error","category":"INVALID_AUTHENTICATION"}');
    if (req.method !== 'GET') return send(405, '{"status":"error"}');
    if (url.pathname === '/crm/v3/pipelines/deals') return send(200, fixture('pipelines.json'));
    if (url.pathname === '/crm/v3/owners') return send(200, fixture('owners.json'));
    if (url.pathname === '/account-info/v3/details') {
      return send(
        200,
        JSON.stringify({
          portalId: 4410021,
          accountType: 'STANDARD',
          timeZone: 'Europe/Paris',
          companyCurrency: 'EUR',
          utcOffset: '+01:00',
          uiDomain: 'app.hubspot.com',
          dataHostingLocation: 'eu1',
        }),
      );
    }
    if (url.pathname === '/crm/v3/objects/deals') {
      // Page 1 says `paging.next.after: "d9"`; page 2 is the last.
      return send(
        200,
        fixture(url.searchParams.get('after') === 'd9' ? 'deals-page-2.json' : 'deals-page-1.json'),
      );
    }
    send(404, '{"status":"error","category":"OBJECT_NOT_FOUND"}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      ),
  };
}
