import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startGateway, type TestGateway } from '../helpers/gateway';

const ROOT = join(__dirname, '..', '..');
/** The CLI's entry (its package's `bin`), run with this Node: no npx, nothing fetched. */
const REDOCLY_CLI = join(ROOT, 'node_modules', '@redocly', 'cli', 'bin', 'cli.js');

interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { pointer: string }[];
}

/** `redocly lint` with the project's redocly.yaml on `file`: every problem it reports. */
function lint(file: string): Promise<string[]> {
  const args = [REDOCLY_CLI, 'lint', file, '--config', join(ROOT, 'redocly.yaml'), '--format=json'];
  // No usage report and no look-up of a newer version: the linter needs no network.
  const env = { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' };
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      args,
      { cwd: ROOT, env, timeout: 60_000 },
      (error, stdout, stderr) => {
        // It exits with 1 when it finds an error; the report is on stdout either way.
        let report: { problems: LintProblem[] };
        try {
          report = JSON.parse(stdout) as { problems: LintProblem[] };
        } catch {
          reject(new Error(`Expected redocly lint's JSON report, got ${String(error)}: ${stderr}`));
          return;
        }
        resolve(
          report.problems.map(
            (p) => `${p.severity} ${p.ruleId} at ${p.location[0]?.pointer ?? '?'}: ${p.message}`,
          ),
        );
      },
    );
  });
}

type Json = Record<string, any>;

describe('redocly lint on the served /openapi.json', () => {
  let gateway: TestGateway;
  let dir: string;
  let document: Json;

  beforeAll(async () => {
    gateway = await startGateway();
    dir = await mkdtemp(join(tmpdir(), 'openapi-lint-'));
    const res = await gateway.request<Json>('GET', '/openapi.json', { token: null });
    expect(res.status).toBe(200);
    document = res.body;
  });
  afterAll(async () => {
    await gateway?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it("passes Redocly's recommended rules (as redocly.yaml sets them) without an error or a warning", async () => {
    const file = join(dir, 'openapi.json');
    await writeFile(file, JSON.stringify(document));
    expect(await lint(file)).toEqual([]);
  });

  it('reports a document without servers, so the check above can fail', async () => {
    const file = join(dir, 'no-servers.json');
    await writeFile(file, JSON.stringify({ ...document, servers: undefined }));
    expect(await lint(file)).toEqual([
      'error no-empty-servers at #/openapi: Servers must be present.',
    ]);
  });
});
