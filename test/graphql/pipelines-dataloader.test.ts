import { setCurrency, setPeriod } from '../../src/services/settings.service';
import { generatedFixture } from '../pipelines/fixtures/crm-fixture';
import { ADMIN, startDatabase, TestDatabase } from '../pipelines/support/database';
import { queryData } from '../pipelines/support/graphql';
import { importScenario, setTargets } from '../pipelines/support/scenario';
import { requestContext } from '../pipelines/support/context';

/** The dashboard: every definition, its stages, every pipeline with its owner and all its metrics. */
const DASHBOARD = `{
  snapshot {
    id
    definitions {
      id label
      stages { id label order isClosed probability }
      pipelines {
        id kind isSubPipeline
        team { id name }
        member { id email }
        metrics { definition { id apiCodename } value unit }
      }
    }
  }
}`;

let db: TestDatabase;
const commandsOf = (db: TestDatabase) => [...db.commands];

beforeAll(async () => {
  db = await startDatabase();
  // record which collection each command reads, not only its name
  db.onCommand((name, _db, body) => {
    if (name === 'find') db.commands.push(`find ${String(body.find)}`);
  });
  await setCurrency(requestContext(ADMIN), 'EUR');
  await setPeriod(requestContext(ADMIN), 'quarterly');
});
afterAll(async () => db.stop());

async function dashboardFor(members: number, tag: string, snapshotAt: string) {
  const fixture = generatedFixture({ members, teams: 2, dealsPerMember: 6, tag });
  const scenario = await importScenario(fixture, snapshotAt);
  await setTargets(
    scenario,
    2026,
    Object.fromEntries(fixture.owners.map((o) => [o.id, [1000, 2000, 3000, 4000]])),
  );
  const factsBatches = jest.spyOn(db.access.snapshots, 'facts');
  await db.bumpAll(); // count the reads of mutable data too, not the app's caches of them
  db.resetCommands();
  const data = await queryData(DASHBOARD);
  const commands = commandsOf(db).filter((c) => c.startsWith('find '));
  const batches = factsBatches.mock.calls.map(([, keys]) => keys.length);
  factsBatches.mockRestore();
  return { data, commands, batches, scenario };
}

describe('the dashboard query', () => {
  it('costs the same database round trips for 2 and for 10 members', async () => {
    const small = await dashboardFor(2, 'a', '2026-05-20T12:00:00Z');
    const pipelines = small.data.snapshot.definitions[0].pipelines;
    // complete + 2 teams + 2 members, each with all 8 metrics
    expect(pipelines).toHaveLength(5);
    for (const p of pipelines) expect(p.metrics).toHaveLength(8);
    expect(pipelines[1].team).toEqual({ id: 'a-team-1', name: 'a-team-1' });

    const large = await dashboardFor(10, 'b', '2026-05-21T12:00:00Z');
    expect(large.data.snapshot.definitions[0].pipelines).toHaveLength(13);

    // one read per collection, whatever the number of pipelines
    const expected = [
      'find data_versions',
      'find pipeline_snapshots',
      'find pipeline_definitions',
      'find pipelines',
      'find pipeline_facts',
      'find settings',
      'find targets',
      'find teams',
      'find members',
    ].sort();
    expect([...small.commands].sort()).toEqual(expected);
    expect([...large.commands].sort()).toEqual(expected);
    // the facts of every pipeline come in one batch
    expect(small.batches).toEqual([5]);
    expect(large.batches).toEqual([13]);
  });

  it('reads nothing of a committed snapshot twice: a second dashboard only asks what may change', async () => {
    // Every scope but the removals by retention, the one write that drops the snapshot cache.
    await db.bumpAll(['pruned_snapshots']);
    db.resetCommands();
    await queryData(DASHBOARD);
    // definitions, pipelines and facts come from the snapshot cache now
    expect(
      commandsOf(db)
        .filter((c) => c.startsWith('find '))
        .sort(),
    ).toEqual(
      [
        'find data_versions',
        'find pipeline_snapshots',
        'find settings',
        'find targets',
        'find teams',
        'find members',
      ].sort(),
    );
  });

  it('reads only the versions while nothing is written, and only what a write touched after it', async () => {
    await queryData(DASHBOARD);
    db.resetCommands();
    await queryData(DASHBOARD);
    expect(commandsOf(db).filter((c) => c.startsWith('find '))).toEqual(['find data_versions']);
    await setCurrency(requestContext(ADMIN), 'USD');
    db.resetCommands();
    await queryData(DASHBOARD);
    expect(commandsOf(db).filter((c) => c.startsWith('find '))).toEqual([
      'find data_versions',
      'find settings',
    ]);
    await setCurrency(requestContext(ADMIN), 'EUR');
  });

  it('reads the snapshots of a time-series window once for every pipeline of the query', async () => {
    await db.bumpAll(['pruned_snapshots']);
    db.resetCommands();
    const data = await queryData(
      `{ snapshot { definitions { pipelines { id timeseries(metric: "open_opportunities", duration: 4) { points { value } } } } } }`,
    );
    expect(data.snapshot.definitions[0].pipelines).toHaveLength(13);
    const finds = commandsOf(db).filter((c) => c.startsWith('find '));
    // the latest snapshot, then the window's snapshots: once, not once per pipeline
    expect(finds.filter((c) => c === 'find pipeline_snapshots')).toHaveLength(2);
    expect(finds.filter((c) => c === 'find settings')).toHaveLength(1);
    expect(finds.length).toBeLessThanOrEqual(5);
  });
});
