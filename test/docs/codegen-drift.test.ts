import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..', '..');
const CLI = join(ROOT, 'node_modules', '@graphql-codegen', 'cli', 'cjs', 'bin.js');
const GENERATED = 'src/generated/graphql.ts';
const OPERATION = 'src/graphql/operations/explorer-overview.graphql';

/** `graphql-codegen --check` in `cwd`: exit 0 when the generated files match what codegen would write. */
function codegenCheck(cwd: string): { status: number | null; output: string } {
  const run = spawnSync(process.execPath, [CLI, '--config', 'codegen.yml', '--check'], {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, NODE_PATH: join(ROOT, 'node_modules') },
  });
  return { status: run.status, output: `${run.stdout}${run.stderr}` };
}

/** A scratch copy of what codegen reads and writes, to change without touching the tree. */
function scratchCopy(): string {
  const dir = mkdtempSync(join(tmpdir(), 'codegen-'));
  for (const path of ['codegen.yml', 'schema', 'src/graphql/operations', 'src/generated'])
    cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  return dir;
}

describe('GraphQL codegen', () => {
  it('committed generated types match schema/schema.graphql and the operations (run `npm run codegen` if not)', () => {
    const { status, output } = codegenCheck(ROOT);
    expect({ status, output: status === 0 ? '' : output }).toEqual({ status: 0, output: '' });
  });

  it('notices when an operation changes without regenerating', () => {
    const dir = scratchCopy();
    try {
      const path = join(dir, OPERATION);
      writeFileSync(
        path,
        readFileSync(path, 'utf8').replace('createdAt', 'createdAt\n    __typename'),
      );
      const { status, output } = codegenCheck(dir);
      expect(status).toBe(1);
      expect(output).toContain(GENERATED);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('writes no timestamp or other run-dependent text', () => {
    const generated = readFileSync(join(ROOT, GENERATED), 'utf8');
    expect(generated).not.toMatch(/\b20\d\d-\d\d-\d\d/);
    expect(generated).toContain('export const ExplorerOverviewDocument');
  });
});
