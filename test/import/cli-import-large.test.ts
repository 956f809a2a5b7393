import { spawnSync } from 'node:child_process';
import { createWriteStream, mkdtempSync, rmSync, statSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { type Binary, MongoClient } from 'mongodb';
import { unpackDayBuckets } from '../../src/models/packed-day-buckets';
import { startStoreProcess, withDatabase, type StoreProcess } from '../helpers/store-process';

/**
 * A deals file larger than the largest BODY_LIMIT (100 MiB), imported by the CLI with its heap
 * limited to 256 MB: the import streams the file, so it needs memory for a batch of deals, not for
 * the file. The import runs against a store process by URI, so the CLI's heap holds the import's
 * work only. The snapshot's counts and facts are checked against figures computed here.
 */

const ROOT = path.resolve(__dirname, '..', '..');
const MAX_BODY_LIMIT = 100 * 1024 * 1024;
const DEALS = 48_000;
const OWNERS = 40;
const SNAPSHOT_AT = '2026-06-30T00:00:00Z';
const STAGES = [
  { id: 'open-a', isClosed: false, probability: 0.2 },
  { id: 'open-b', isClosed: false, probability: 0.6 },
  { id: 'won', isClosed: true, probability: 1 },
  { id: 'lost', isClosed: true, probability: 0 },
];
// HubSpot sends long texts with a deal (its description, notes); the import reads none of them.
const DESCRIPTION = 'Renewal of the platform licence with the premium support tier. '.repeat(36);

function deal(i: number) {
  const stage = STAGES[i % STAGES.length];
  return {
    id: String(500000 + i),
    properties: {
      dealname: `Deal ${i}`,
      amount: String(100 + (i % 997)),
      pipeline: 'default',
      dealstage: stage.id,
      createdate: '2026-01-10T00:00:00.000Z',
      closedate: new Date(Date.UTC(2026, 0, 20 + (i % 300))).toISOString(),
      hubspot_owner_id: String(700 + (i % OWNERS)),
      description: DESCRIPTION,
    },
  };
}

/** The figures the snapshot must hold, from the deals as written. */
function expected() {
  let openCount = 0;
  let openAmount = 0;
  let openWeighted = 0;
  let wonCount = 0;
  let wonAmount = 0;
  for (let i = 0; i < DEALS; i += 1) {
    const stage = STAGES[i % STAGES.length];
    const amount = 100 + (i % 997);
    if (!stage.isClosed) {
      openCount += 1;
      openAmount += amount;
      openWeighted += amount * stage.probability;
    } else if (stage.id === 'won') {
      wonCount += 1;
      wonAmount += amount;
    }
  }
  return { openCount, openAmount, openWeighted, wonCount, wonAmount };
}

async function writeFiles(dir: string) {
  const pipelines = path.join(dir, 'pipelines.json');
  const owners = path.join(dir, 'owners.json');
  const deals = path.join(dir, 'deals.json');
  const write = async (file: string, chunks: Iterable<string>) => {
    const out = createWriteStream(file);
    for (const chunk of chunks) if (!out.write(chunk)) await once(out, 'drain');
    out.end();
    await once(out, 'finish');
  };
  await write(pipelines, [
    JSON.stringify({
      results: [
        {
          id: 'default',
          label: 'Sales',
          displayOrder: 0,
          stages: STAGES.map((s, order) => ({
            id: s.id,
            label: s.id,
            displayOrder: order,
            metadata: { isClosed: String(s.isClosed), probability: String(s.probability) },
          })),
        },
      ],
    }),
  ]);
  await write(owners, [
    JSON.stringify({
      results: Array.from({ length: OWNERS }, (_, k) => ({
        id: String(700 + k),
        email: `seller${k}@example.com`,
        firstName: 'Seller',
        lastName: String(k),
        userId: 900 + k,
      })),
    }),
  ]);
  // One page with every deal, as one request for all of them would answer.
  await write(
    deals,
    (function* () {
      yield '{"results":[';
      for (let i = 0; i < DEALS; i += 1) yield `${i > 0 ? ',' : ''}${JSON.stringify(deal(i))}`;
      yield ']}';
    })(),
  );
  return [pipelines, owners, deals];
}

describe('npm run import of a file larger than BODY_LIMIT, with a 256 MB heap', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'import-large-'));
  let store: StoreProcess;
  beforeAll(async () => {
    store = await startStoreProcess();
  });
  afterAll(async () => {
    await store?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('imports every deal and the snapshot holds the counts and facts computed here', async () => {
    const files = await writeFiles(dir);
    expect(statSync(files[2]).size).toBeGreaterThan(MAX_BODY_LIMIT);
    const uri = withDatabase(store.uri, 'large');
    const result = spawnSync(
      process.execPath,
      [
        '--max-old-space-size=256',
        '-r',
        './test/helpers/ts-register.js',
        'src/cli/import.ts',
        '--snapshot-at',
        SNAPSHOT_AT,
        ...files,
      ],
      {
        cwd: ROOT,
        env: { ...process.env, MONGODB_URI: uri, DATA_DIR: dir, LOG_LEVEL: 'silent' },
        encoding: 'utf8',
      },
    );
    expect(result.stderr).not.toMatch(/heap out of memory|Import failed/);
    expect(result.status).toBe(0);
    expect(result.stdout).toContain(`  deals        ${DEALS}`);
    expect(result.stdout).toContain(`  owners       ${OWNERS} (${OWNERS} new members`);

    const client = new MongoClient(uri);
    try {
      const db = client.db();
      const snapshot = await db.collection('pipeline_snapshots').findOne({ status: 'committed' });
      expect(snapshot?.counts).toMatchObject({ deals: DEALS, pipelines: 1, owners: OWNERS });
      expect(await db.collection('opportunity_versions').countDocuments()).toBe(DEALS);
      const facts = await db
        .collection('pipeline_facts')
        .findOne({ snapshotId: snapshot!._id, pipelineId: 'default' });
      const want = expected();
      expect(facts).toMatchObject({
        openCount: want.openCount,
        openAmount: want.openAmount,
      });
      expect(facts!.openWeighted).toBeCloseTo(want.openWeighted, 6);
      // Every member's own pipeline, and one per team (owners without a team: "unassigned").
      expect(await db.collection('pipelines').countDocuments({ snapshotId: snapshot!._id })).toBe(
        1 + 1 + OWNERS,
      );
      // Won deals by close day: every close date lies in the snapshot's year.
      const days = unpackDayBuckets((facts!.packedDays as Binary).buffer);
      expect(days.reduce((n, d) => n + d.wonCount, 0)).toBe(want.wonCount);
      expect(days.reduce((n, d) => n + d.wonAmount, 0)).toBe(want.wonAmount);
      const members = await db
        .collection('pipeline_facts')
        .find({ snapshotId: snapshot!._id, kind: 'member' })
        .toArray();
      expect(members.reduce((n, f) => n + (f.openCount as number), 0)).toBe(want.openCount);
    } finally {
      await client.close();
    }
  }, 600_000);
});
