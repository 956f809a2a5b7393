import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MongoClient, type Db } from 'mongodb';
import { EMBEDDED_DB_NAME } from '../../src/db/connect-database';
import { EmbeddedMongoServer } from '../../src/store/server';
import { fixturePath } from '../import/fixtures';
import { startEntry, type RunningEntry } from '../helpers/entry';
import { startStoreProcess, withDatabase, type StoreProcess } from '../helpers/store-process';

const ROOT = path.resolve(__dirname, '..', '..');

/** Runs a CLI from source as its npm script would, on the embedded database in `dataDir`. */
function runCli(script: string, args: string[], dataDir: string) {
  const result = spawnSync(
    process.execPath,
    ['-r', './test/helpers/ts-register.js', script, ...args],
    {
      cwd: ROOT,
      env: { ...process.env, DATA_DIR: dataDir, MONGODB_URI: '', LOG_LEVEL: 'silent' },
      encoding: 'utf8',
    },
  );
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

/** Every collection of a database: its documents by _id (types kept) and its index keys. */
async function contentsOf(db: Db) {
  const contents: Record<string, { documents: unknown[]; indexes: unknown[] }> = {};
  for (const { name } of await db.listCollections({ type: 'collection' }).toArray()) {
    const documents = await db
      .collection(name)
      .find({}, { promoteValues: false, promoteLongs: false })
      .sort({ _id: 1 })
      .toArray();
    const indexes = (await db.collection(name).indexes())
      .map((i) => ({ name: i.name, key: i.key, unique: i.unique ?? false }))
      .sort((a, b) => String(a.name).localeCompare(String(b.name)));
    contents[name] = { documents, indexes };
  }
  return contents;
}

const ADMIN_TOKEN = 'export-to-test-admin-token';

async function getJson(entry: RunningEntry, pathAndQuery: string) {
  const res = await fetch(`${entry.url}${pathAndQuery}`, {
    headers: { authorization: `Bearer ${ADMIN_TOKEN}` },
  });
  return { path: pathAndQuery, status: res.status, body: (await res.json()) as unknown };
}

/**
 * What the gateway answers on its database: the latest snapshot's pipelines, and per definition
 * its stages, the metrics of its complete pipeline and its stage analytics (read from the deal
 * states), and the teams.
 */
async function readBack(entry: RunningEntry) {
  const pipelines = await getJson(entry, '/pipelines');
  const definitions = (
    pipelines.body as { pipeline_definitions: { pipeline_definition_id: string }[] }
  ).pipeline_definitions.map((d) => d.pipeline_definition_id);
  const answers = [pipelines, await getJson(entry, '/teams')];
  const today = new Date().toISOString().slice(0, 10);
  for (const id of definitions) {
    answers.push(await getJson(entry, `/pipelines/stages?pipeline_definition_id=${id}`));
    answers.push(await getJson(entry, `/pipelines/metrics?pipeline_id=${id}`));
    answers.push(
      await getJson(
        entry,
        `/pipelines/stage-analytics?pipeline_id=${id}&from=2000-01-01&to=${today}`,
      ),
    );
  }
  return { definitions, answers };
}

async function stopEntry(entry: RunningEntry) {
  entry.child.kill('SIGTERM');
  await entry.exited;
}

describe('npm run export-to', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'export-to-'));
  let store: StoreProcess;
  beforeAll(async () => {
    store = await startStoreProcess();
  });
  afterAll(async () => {
    await store?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('copies an embedded data directory into a MONGODB_URI database the gateway then reads as it read the directory, and refuses a target that holds data', async () => {
    const files = [
      'messy/pipelines.json',
      'messy/owners.json',
      'messy/deals-page-1.json',
      'messy/deals-page-2.json',
    ].map(fixturePath);
    const imported = runCli('src/cli/import.ts', files, dataDir);
    expect(imported.status).toBe(0);
    const target = withDatabase(store.uri, 'exported');

    const exported = runCli('src/cli/export-to.ts', [target], dataDir);
    expect(exported.stderr).toBe('');
    expect(exported.status).toBe(0);
    expect(exported.stdout).toMatch(/Copied \d+ documents from .* into database exported/);

    const embedded = await EmbeddedMongoServer.start({ privateSocket: true, dataDir });
    const source = new MongoClient(embedded.uri);
    const copy = new MongoClient(target);
    try {
      const expected = await contentsOf(source.db(EMBEDDED_DB_NAME));
      expect(Object.keys(expected)).toEqual(
        expect.arrayContaining(['opportunity_versions', 'pipeline_facts', 'pipeline_snapshots']),
      );
      expect(expected.opportunity_versions.documents).toHaveLength(8);
      expect(await contentsOf(copy.db())).toEqual(expected);
    } finally {
      await source.close();
      await copy.close();
      await embedded.stop();
    }

    // The gateway reads the copy by MONGODB_URI as it read the data directory.
    const onDataDir = await startEntry(dataDir, { ADMIN_TOKEN });
    let before: Awaited<ReturnType<typeof readBack>>;
    try {
      before = await readBack(onDataDir);
    } finally {
      await stopEntry(onDataDir);
    }
    expect(before.definitions.length).toBeGreaterThan(0);
    for (const answer of before.answers) expect(answer).toMatchObject({ status: 200 });
    const onUri = await startEntry(dataDir, { ADMIN_TOKEN, MONGODB_URI: target });
    try {
      expect(await readBack(onUri)).toEqual(before);
    } finally {
      await stopEntry(onUri);
    }

    const again = runCli('src/cli/export-to.ts', [target], dataDir);
    expect(again.status).toBe(1);
    expect(again.stderr).toMatch(
      /^Export failed: the target's collection \S+ holds \d+ documents already: export into an empty database/,
    );
    const bad = runCli('src/cli/export-to.ts', ['postgres://x'], dataDir);
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain('Not a MongoDB URI');
    // Four CLI runs and two gateway starts from the sources, on a shared machine.
  }, 300_000);
});
