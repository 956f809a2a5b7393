import { spawnSync } from 'node:child_process';
import path from 'node:path';
import {
  GATEWAY_SETTINGS,
  IMPORT_SETTINGS,
  STORE_SETTINGS,
  type SettingRow,
} from '../../src/settings-table';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs a CLI from its source as its npm script would, with `--help`. */
function help(source: string): { status: number | null; stdout: string } {
  const result = spawnSync(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', source, '--help'],
    { cwd: ROOT, env: { ...process.env, MONGODB_URI: '' }, encoding: 'utf8' },
  );
  return { status: result.status, stdout: result.stdout };
}

/** Each row as printed: name, summary, default. */
function printed(rows: readonly SettingRow[]): RegExp[] {
  const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return rows.map(
    (row) =>
      new RegExp(
        `^  ${row.name} +${escape(row.summary)} \\(default: ${escape(row.default)}\\)$`,
        'm',
      ),
  );
}

describe('--help of the tools: their options and variables, from the table the docs are checked against', () => {
  it.each([
    ['npm start', 'src/index.ts', /^Usage: npm start/, GATEWAY_SETTINGS],
    ['npm run import', 'src/cli/import.ts', /^Usage: npm run import -- /, IMPORT_SETTINGS],
    ['npm run db', 'src/store/cli.ts', /^Usage: npm run db -- /, STORE_SETTINGS],
    [
      'npm run sync',
      'src/cli/sync.ts',
      /^Usage: npm run sync -- /,
      GATEWAY_SETTINGS.filter((row) => row.name.startsWith('HUBSPOT_')),
    ],
  ] as const)('%s -- --help prints them and exits 0', (_name, source, usage, rows) => {
    const { status, stdout } = help(source);
    expect(status).toBe(0);
    expect(stdout).toMatch(usage);
    for (const row of printed(rows)) expect(stdout).toMatch(row);
  });

  it('npm run fake-crm -- --help prints its options and exits 0', () => {
    const { status, stdout } = help('src/fake-crm/cli.ts');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^Usage: npm run fake-crm -- \[--port <port>\]/);
  });
});
