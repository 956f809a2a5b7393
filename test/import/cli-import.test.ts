import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fixturePath } from './fixtures';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs `src/cli/import.ts` as `npm run import` would (from source), on its own embedded database. */
function runImport(args: string[], dataDir: string) {
  const result = spawnSync(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', 'src/cli/import.ts', ...args],
    {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, MONGODB_URI: '', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('npm run import', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'import-cli-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('imports separate HubSpot files, prints the summary, and is idempotent on a second run', () => {
    const files = [
      'messy/deals-page-1.json',
      'messy/owners.json',
      'messy/deals-page-2.json',
      'messy/pipelines.json',
    ].map(fixturePath);
    const first = runImport(files, dataDir);
    expect(first.stderr).toContain('writing snapshots: 100% (8/8)');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain('Import committed.');
    expect(first.stdout).toContain('  deals        8');
    expect(first.stdout).toContain('  owners       4 (4 new members, 3 teams)');
    expect(first.stdout).toContain('  skipped      13, by reason:');
    expect(first.stdout).toContain('deal has no stage; left out of every metric  [d7]');
    const snapshot = /snapshot {5}(\S+)/.exec(first.stdout)?.[1];

    const second = runImport(files, dataDir);
    expect(second.status).toBe(0);
    expect(second.stdout).toContain(
      'This data was already imported: nothing was written, its snapshot is answered.',
    );
    expect(second.stdout).toContain(`snapshot     ${snapshot}`);
  });

  it('applies an incremental import with --incremental, and refuses a full import losing most deals unless --force', () => {
    const changes = path.join(dataDir, 'changed-deals.json');
    const d1 = JSON.parse(readFileSync(fixturePath('messy/deals-page-1.json'), 'utf8')).results[0];
    writeFileSync(changes, JSON.stringify({ results: [{ ...d1, archived: true }] }));
    const incremental = runImport(['--incremental', changes], dataDir);
    expect(incremental.status).toBe(0);
    expect(incremental.stdout).toContain('Import committed.');
    expect(incremental.stdout).toContain('  changes      0 deals added or changed, 1 removed');
    expect(incremental.stdout).toContain('  deals        7');

    const partial = path.join(dataDir, 'one-deal.json');
    writeFileSync(partial, JSON.stringify({ results: [d1] }));
    const files = [fixturePath('messy/pipelines.json'), fixturePath('messy/owners.json'), partial];
    const refused = runImport(files, dataDir);
    expect(refused.status).toBe(1);
    expect(refused.stderr).toContain(
      "Import refused: This full import keeps 0 of the latest snapshot's 7 deals (fewer than half)",
    );
    const forced = runImport(['--force', ...files], dataDir);
    expect(forced.status).toBe(0);
    expect(forced.stdout).toContain('  deals        1');
  });

  it('exits 1 with a clear message for an unreadable file or an invalid document', () => {
    const missing = runImport([path.join(dataDir, 'missing.json')], dataDir);
    expect(missing.status).toBe(1);
    expect(missing.stderr).toContain(
      `Cannot import: ${path.join(dataDir, 'missing.json')}: cannot read it (no such file)`,
    );
    const invalid = runImport([fixturePath('invalid/pipeline-without-id.json')], dataDir);
    expect(invalid.status).toBe(1);
    expect(invalid.stderr).toContain(
      '  pipelines.results[0].id: pipelines.results[0].id must be a non-empty string, got nothing',
    );
  });

  it('counts deals in another currency with --home-currency, and names the line and column of invalid JSON', () => {
    const own = mkdtempSync(path.join(tmpdir(), 'import-cli-'));
    try {
      const files = [
        'shapes/pipelines.json',
        'shapes/owners.json',
        'shapes/deals-currencies.json',
      ].map(fixturePath);
      // No currency is configured on this database: the home currency is the one counted in.
      const withHome = runImport(['--home-currency', 'usd', ...files], own);
      expect(withHome.status).toBe(0);
      expect(withHome.stdout).toContain('  deals        2');
      const broken = fixturePath('invalid/owners-leading-zero.json');
      const invalid = runImport([fixturePath('shapes/pipelines.json'), broken], own);
      expect(invalid.status).toBe(1);
      expect(invalid.stderr).toContain(
        `Cannot import: ${broken}: is not valid JSON at line 7, column 18: Unexpected number in JSON`,
      );
    } finally {
      rmSync(own, { recursive: true, force: true });
    }
  });

  it('exits 2 with the usage when no file is given', () => {
    const usage = runImport([], dataDir);
    expect(usage.status).toBe(2);
    expect(usage.stderr).toContain('Usage: npm run import --');
  });
});
