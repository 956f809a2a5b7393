import { spawn } from 'node:child_process';
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import {
  buildSchema,
  Kind,
  parse,
  specifiedRules,
  validate,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from 'graphql';
import { buildGatewaySchema } from '../../src/graphql/build-schema';
import { GATEWAY_SETTINGS, STORE_SETTINGS } from '../../src/settings-table';
import { graphqlLimitRules } from '../../src/security/graphql-limits';
import { estimateCost, QUERY_COST } from '../../src/security/query-cost';
import { startEntry } from '../helpers/entry';
import { documentScript, runsHere, type RunBlock } from './doc-script';
import { startFakeHubSpot, type FakeHubSpot } from './fake-hubspot';
import { fencedBlocks, RUN_LANGUAGES, type FencedBlock } from './markdown-blocks';

// Every shell command and GraphQL operation shown in README.md and docs/*.md runs here, file by
// file, top to bottom, against a fresh gateway holding the demo company: the real entry, started
// from the sources on a copy of a data directory it seeded itself. How blocks are marked:
// test/docs/markdown-blocks.ts (ATTRIBUTES); how curl is checked: test/docs/doc-prelude.bash.

const ROOT = path.join(__dirname, '../..');
const DOCUMENTS = [
  'README.md',
  ...readdirSync(path.join(ROOT, 'docs'))
    .filter((name) => name.endsWith('.md'))
    .sort()
    .map((name) => `docs/${name}`),
];
// What a document's gateway runs with besides the defaults, as the document itself says.
const DOCUMENT_ENV: Record<string, Record<string, string>> = {
  // Its example receiver listens on 127.0.0.1, which webhooks may only call with this set.
  'docs/events.md': { WEBHOOK_ALLOW_PRIVATE_URLS: 'true' },
};
const SCHEMA = buildSchema(readFileSync(path.join(ROOT, 'schema/schema.graphql'), 'utf8'));
// The fields' costs (`complexity`) are in the schema the code builds, not in the SDL.
let costSchema: GraphQLSchema;
beforeAll(async () => {
  costSchema = await buildGatewaySchema();
});

function blocksOf(file: string): FencedBlock[] {
  return fencedBlocks(readFileSync(path.join(ROOT, file), 'utf8'), file);
}

function runBlocksOf(file: string): RunBlock[] {
  return blocksOf(file)
    .filter(runsHere)
    .map((block, index) => ({ number: index + 1, file, block }));
}

/** What is wrong with how a block is marked, or null. */
function markingProblem(block: FencedBlock): string | null {
  const { attributes, language } = block;
  if (language === '')
    return 'a fence without a language: say what the block is (```sh, ```graphql, ```json, ```text...)';
  const runnable = (RUN_LANGUAGES as readonly string[]).includes(language);
  if (!runnable && Object.keys(attributes).length > 0)
    return `attributes on a ${language} block, which never runs`;
  if (attributes.expect !== undefined && !/^[1-5]\d\d$/.test(attributes.expect))
    return `expect=${attributes.expect}: an HTTP status`;
  if (
    language !== 'graphql' &&
    (attributes.token !== undefined || attributes.variables !== undefined)
  )
    return 'token and variables are for graphql blocks';
  if (attributes.variables !== undefined && !/^\w+:\w+(,\w+:\w+)*$/.test(attributes.variables))
    return `variables=${attributes.variables}: name:SHELL_VAR,...`;
  const coveredBy = attributes['covered-by'];
  if (coveredBy !== undefined && !existsSync(path.join(ROOT, coveredBy)))
    return `covered-by=${coveredBy}: no such file`;
  if (attributes['no-run'] !== undefined && attributes['no-run'].trim().length < 10)
    return 'no-run needs the reason it is not run';
  if (language === 'graphql') return graphqlProblem(block);
  return null;
}

/**
 * A GraphQL block must be valid against schema/schema.graphql and, unless it documents a refusal
 * (`code=`), within the gateway's depth, alias and directive limits and its cost limit.
 */
function graphqlProblem(block: FencedBlock): string | null {
  let document;
  try {
    document = parse(block.text);
  } catch (error) {
    return `does not parse: ${(error as Error).message}`;
  }
  const refusal = block.attributes.code !== undefined;
  const errors = validate(
    SCHEMA,
    document,
    refusal ? specifiedRules : [...specifiedRules, ...graphqlLimitRules()],
  );
  if (errors.length > 0)
    return `not valid against schema/schema.graphql: ${errors.map((e) => e.message).join('; ')}`;
  if (refusal) return null;
  for (const operation of document.definitions.filter(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition',
  )) {
    // Variables come from the shell when the block runs; ids and cursors do not change a cost.
    const variables: Record<string, unknown> = {};
    for (const definition of operation.variableDefinitions ?? []) {
      const { type, variable, defaultValue } = definition;
      if (type.kind !== Kind.NON_NULL_TYPE || defaultValue) continue;
      if (type.type.kind !== Kind.NAMED_TYPE || !['ID', 'String'].includes(type.type.name.value))
        return `variable $${variable.name.value}: the cost check has no stand-in value for its type`;
      variables[variable.name.value] = 'x';
    }
    const cost = estimateCost(costSchema, document, operation, variables);
    if (cost > QUERY_COST.maxCost) return `costs ${cost}, over the limit of ${QUERY_COST.maxCost}`;
  }
  return null;
}

interface DocumentRun {
  status: number | null;
  output: string;
  /** One entry per HTTP request the examples made. */
  calls: { block: number; status: string; verdict: string; url: string; why: string }[];
}

/** Runs `script` with bash in `cwd`, with a clean environment (nothing of the caller's leaks in). */
function runScript(
  script: string,
  cwd: string,
  env: Record<string, string>,
): Promise<{ status: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', script], {
      cwd,
      // HUBSPOT_TOKEN: the reader's own private-app token, which docs/importing.md expects to be set.
      env: {
        PATH: process.env.PATH ?? '/usr/bin:/bin',
        HOME: cwd,
        LANG: 'C.UTF-8',
        HUBSPOT_TOKEN: 'pat-docs-test',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
    child.on('error', reject);
    child.on('close', (status) => {
      clearTimeout(timer);
      resolve({ status, output });
    });
  });
}

/** A loopback port free now, for a server a document starts itself (the fake CRM). */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as net.AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

describe('executed documentation (README.md, docs/*.md)', () => {
  let scratch: string;
  let template: string;
  let hubspot: FakeHubSpot;

  beforeAll(async () => {
    scratch = mkdtempSync(path.join(os.tmpdir(), 'executed-docs-'));
    hubspot = await startFakeHubSpot();
    // One seeding for the whole suite: the entry loads the demo company into an empty data
    // directory, as on a first `npm start`; every document then runs on its own copy of it.
    template = path.join(scratch, 'template-data');
    const seeding = await startEntry(template, { SEED_DEMO: 'true' });
    try {
      const adminToken = readFileSync(path.join(template, 'admin-token'), 'utf8').trim();
      const teams = await fetch(`${seeding.url}/teams`, {
        headers: { authorization: `Bearer ${adminToken}` },
      });
      expect(((await teams.json()) as { teams: unknown[] }).teams).toHaveLength(3);
    } finally {
      seeding.child.kill('SIGTERM');
    }
    expect(await seeding.exited).toBe(0);
  }, 180_000);

  afterAll(async () => {
    await hubspot?.close();
    if (scratch) rmSync(scratch, { recursive: true, force: true });
  });

  it('marks every fenced block with a language, and its attributes are known and consistent', () => {
    const problems = DOCUMENTS.flatMap((file) =>
      blocksOf(file).flatMap((block) => {
        const problem = markingProblem(block);
        return problem === null ? [] : [`${file}:${block.line}: ${problem}`];
      }),
    );
    expect(problems).toEqual([]);
  });

  it('docs/configuration.md has a row for every variable src/config.ts reads, and none it does not', () => {
    const source = readFileSync(path.join(ROOT, 'src/config.ts'), 'utf8');
    const read = new Set(
      [...source.matchAll(/\b(?:integer|text|flag)\(\s*env,\s*'([A-Z_]+)'|\benv\.([A-Z_]+)/g)].map(
        (m) => m[1] ?? m[2],
      ),
    );
    const documented = new Set(GATEWAY_SETTINGS.map((row) => row.name));
    expect({
      undocumented: [...read].filter((v) => !documented.has(v)),
      stale: [...documented].filter((v) => !read.has(v)),
    }).toEqual({ undocumented: [], stale: [] });
  });

  // The tables --help prints (src/settings-table.ts) are the documented ones: names and defaults.
  it.each([
    ['the gateway', '| variable | default | meaning |', GATEWAY_SETTINGS],
    ['npm run db', '| `npm run db` variable | default | meaning |', STORE_SETTINGS],
  ] as const)(
    'docs/configuration.md lists the variables of %s with the defaults --help prints',
    (_what, header, rows) => {
      const doc = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
      const at = doc.indexOf(header);
      expect(at).toBeGreaterThanOrEqual(0);
      const table = doc.slice(at, doc.indexOf('\n\n', at));
      const documented = [...table.matchAll(/^\| `([A-Z_]+)` \| ([^|]*) \|/gm)].map((m) => ({
        name: m[1],
        default: m[2].trim().replace(/`/g, ''),
      }));
      expect(documented).toEqual(rows.map((row) => ({ name: row.name, default: row.default })));
    },
  );

  const runnable = DOCUMENTS.filter((file) => runBlocksOf(file).length > 0);

  it.each(runnable)(
    '%s: every command and operation runs, top to bottom, on a fresh demo gateway',
    async (file) => {
      const blocks = runBlocksOf(file);
      const workdir = mkdtempSync(path.join(scratch, `${path.basename(file, '.md')}-`));
      // The reader's working directory after `npm start`: the data directory is ./data.
      cpSync(template, path.join(workdir, 'data'), { recursive: true });
      const gateway = await startEntry(path.join(workdir, 'data'), DOCUMENT_ENV[file] ?? {});
      const callLog = path.join(workdir, '.calls.tsv');
      writeFileSync(callLog, '');
      let run: DocumentRun;
      try {
        const port = new URL(gateway.url).port;
        const result = await runScript(documentScript(blocks), workdir, {
          __GW_PORT: port,
          __HS_PORT: String(hubspot.port),
          __CALL_LOG: callLog,
          __ROOT: ROOT,
          __FAKE_CRM_PORT: String(await freePort()),
        });
        const calls = readFileSync(callLog, 'utf8')
          .split('\n')
          .filter((line) => line !== '')
          .map((line) => {
            const [block, status, verdict, url, why] = line.split('\t');
            return { block: Number(block), status, verdict, url, why };
          });
        run = { ...result, calls };
      } finally {
        gateway.child.kill('SIGTERM');
        await gateway.exited;
      }

      // For writers: DOCS_OUTPUT=<dir> keeps what each document's examples printed.
      if (process.env.DOCS_OUTPUT)
        writeFileSync(
          path.join(process.env.DOCS_OUTPUT, `${path.basename(file, '.md')}.out`),
          run.output,
        );
      const tail = run.output.slice(-4000);
      expect({ exitStatus: run.status, tail: run.status === 0 ? '' : tail }).toEqual({
        exitStatus: 0,
        tail: '',
      });
      const failed = run.calls.filter((call) => call.verdict !== 'ok');
      expect(failed).toEqual([]);
      // A block that made no request was not run (or says nothing the test can check).
      const silent = blocks
        .filter(({ number }) => !run.calls.some((call) => call.block === number))
        .map(({ block }) => `${file}:${block.line}`);
      expect(silent).toEqual([]);
    },
    180_000,
  );
});
