import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { MAIN_FIXTURE, toImportBody } from '../pipelines/fixtures/crm-fixture';
import { startEntry } from '../helpers/entry';

const ADMIN_TOKEN = 'signals-test-admin-token-0123456789';

/**
 * The real entry in production mode (NODE_ENV=production: Apollo would install its own signal
 * handlers there, which jest's NODE_ENV=test hides). A signal arriving while an import's body is
 * still being uploaded must let that import finish and answer, then exit 0.
 */
describe.each(['SIGTERM', 'SIGINT'] as const)('%s in production mode', (signal) => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'gw-signals-'));
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  it('drains a slow POST /crm/imports: the import answers 200, the process exits 0', async () => {
    const { child, url, exited, output } = await startEntry(dataDir, { NODE_ENV: 'production', ADMIN_TOKEN });
    const body = Buffer.from(JSON.stringify(toImportBody(MAIN_FIXTURE, '2026-05-20T12:00:00Z')));
    const half = Math.floor(body.length / 2);
    let exitedEarly = false;
    void exited.then(() => (exitedEarly = true));

    const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
      const req = http.request(
        `${url}/crm/imports`,
        { method: 'POST', agent: false, headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json', 'content-length': body.length } },
        (res) => {
          let text = '';
          res.on('data', (chunk: Buffer) => (text += chunk.toString()));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.write(body.subarray(0, half));
      // The signal lands while the body is still on its way; the rest follows a little later.
      setTimeout(() => child.kill(signal), 300);
      setTimeout(() => req.end(body.subarray(half)), 900);
    });

    const res = await answer;
    expect({ status: res.status, text: res.text }).toEqual({ status: 200, text: expect.stringContaining('"snapshot_id"') });
    const code = await exited;
    expect({ code, output: code === 0 ? '' : output() }).toEqual({ code: 0, output: '' });
    expect(exitedEarly).toBe(true);
  });
});
