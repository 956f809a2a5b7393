import { randomUUID } from 'node:crypto';
// trusted(): the `$in` operators here are ours, never client input (filters are sanitised globally).
import { trusted, type Connection } from 'mongoose';
import type { Principal } from '../auth/principal';
import { Role } from '../auth/role';
import { discardPendingImports } from '../import/discard-import';
import { migrateOpportunityCopies } from '../db/migrate-opportunity-copies';
import { clearImportLease } from '../import/import-lease';
import { CrmOwnerLinkModel } from '../models/crm-owner-link.model';
import { MemberModel } from '../models/member.model';
import { TargetModel } from '../models/target.model';
import { CrmImportResult, ImportProgress, importCrmData } from '../services/import.service';
import { SETTINGS_ID, SettingsModel } from '../models/settings.model';
import { DEMO_CURRENCY, DEMO_PEOPLE, DEMO_PERIOD, DEMO_TEAMS } from './demo-company';
import { demoTargets } from './demo-targets';
import { demoHistory } from './demo-history';
import {
  DEFAULT_DEMO_SEED,
  type DemoDocuments,
  DemoOptions,
  generateDemoDocuments,
} from './generate-demo';
import { SCOPES } from '../data/scopes';
import { forecastMappingKey } from '../models/settings.model';
import { ForecastSubmissionModel } from '../models/forecast-submission.model';
import {
  addDemoForecastCategories,
  DEMO_CADENCE,
  DEMO_FORECAST_MAPPINGS,
  demoForecastCalls,
} from './demo-forecasts';
import { VERSIONS_COLLECTION, bumpVersions } from '../data/versions-document';

/** The seed acts as the system, with admin rights; it is never reachable from a request. */
const SEED_PRINCIPAL: Principal = {
  subject: 'demo-seed',
  role: Role.ADMIN,
  memberId: null,
  teamId: null,
};

export interface SeedDemoOptions extends DemoOptions {
  onProgress?: (progress: ImportProgress) => void;
  /** Called when seeding begins (it takes seconds), before anything is written. */
  onStart?: () => void;
}

export interface SeedDemoResult {
  import: CrmImportResult;
  /** Members given the admin or manager role. */
  rolesSet: number;
  /** Target sets written (one per member and year). */
  targets: number;
  /** Forecast calls written, over the previous and the current quarter. */
  forecastCalls: number;
}

/**
 * Loads the demo company: currency EUR and quarterly periods, the forecast cadence and a stage
 * mapping of Renewals, the generated HubSpot documents (some deals carrying a rep's forecast
 * category) imported through the import service (its recent weeks week by week, importHistory),
 * roles (one admin, a manager per team), targets for every member for the current and previous
 * year, and forecast calls over the previous and the current quarter. Deterministic for a seed
 * and `now`.
 */
export async function seedDemo(options: SeedDemoOptions = {}): Promise<SeedDemoResult> {
  const now = options.now ?? new Date();
  const seed = options.seed ?? DEFAULT_DEMO_SEED;
  // The seed sets the account up itself, as it writes roles and targets below.
  await SettingsModel.updateOne(
    { _id: SETTINGS_ID },
    {
      $set: {
        currency: DEMO_CURRENCY,
        period: DEMO_PERIOD,
        // Before the import, which applies the mapping to the deals it stores.
        forecastCadence: DEMO_CADENCE,
        ...Object.fromEntries(
          DEMO_FORECAST_MAPPINGS.map((m) => [
            `forecastCategories.${forecastMappingKey(m.definitionId)}`,
            m,
          ]),
        ),
      },
    },
    { upsert: true },
  ).exec();
  const docs = generateDemoDocuments({ ...options, now, seed });
  addDemoForecastCategories(docs, seed + 4);
  const result = await importHistory(docs, now, seed, options.onProgress);

  const links = new Map(
    (
      await CrmOwnerLinkModel.find({
        _id: trusted({ $in: DEMO_PEOPLE.map((p) => p.ownerId) }),
      }).lean()
    ).map((l) => [l._id, l.memberId]),
  );
  let rolesSet = 0;
  for (const person of DEMO_PEOPLE) {
    const memberId = links.get(person.ownerId);
    if (memberId === undefined || person.role === Role.MEMBER) continue;
    await MemberModel.updateOne({ _id: memberId }, { $set: { role: person.role } });
    rolesSet += 1;
  }

  // Targets go in through the model: the seed has just set the period and currency itself, and
  // replaces the demo members' targets for these two years wholesale (delete, then insert).
  const year = now.getUTCFullYear();
  const years = [year - 1, year];
  const targets = demoTargets(docs, years, seed + 1);
  const rows = DEMO_PEOPLE.flatMap((person) => {
    const memberId = links.get(person.ownerId);
    if (memberId === undefined) return [];
    return [...(targets.get(person.ownerId) ?? [])].map(([targetYear, amounts]) => ({
      _id: randomUUID(),
      memberId,
      year: targetYear,
      period: DEMO_PERIOD,
      currency: DEMO_CURRENCY,
      amounts,
    }));
  });
  await TargetModel.deleteMany({
    memberId: trusted({ $in: [...links.values()] }),
    year: trusted({ $in: years }),
  });
  await TargetModel.insertMany(rows);

  const forecasters = DEMO_PEOPLE.flatMap((person) => {
    const memberId = links.get(person.ownerId);
    return memberId === undefined
      ? []
      : [{ ownerId: person.ownerId, memberId, teamId: person.teamId, role: person.role }];
  });
  const calls = demoForecastCalls(docs, forecasters, now, seed + 3);
  // As for targets: the demo people's calls (their own, their teams', the company's they made) are replaced.
  const demoMembers = [...links.values()];
  await ForecastSubmissionModel.deleteMany({
    $or: [
      { scopeId: trusted({ $in: [...demoMembers, ...DEMO_TEAMS.map((t) => t.id)] }) },
      { scope: 'company', 'submittedBy.memberId': trusted({ $in: demoMembers }) },
    ],
  });
  await ForecastSubmissionModel.insertMany(calls);
  return { import: result, rolesSet, targets: rows.length, forecastCalls: calls.length };
}

/**
 * Imports the demo company's recent weeks (demo-history.ts): the first moment as a full import
 * with backfill (its quarter ends before it), each later one as an incremental import of the
 * deals that changed, the last at `now`, so that movement, stage analytics and slipped deals have
 * something to show. Answers the last import, with every snapshot and member the seed made.
 */
async function importHistory(
  docs: DemoDocuments,
  now: Date,
  seed: number,
  onProgress: SeedDemoOptions['onProgress'],
): Promise<CrmImportResult> {
  const caller = { principal: SEED_PRINCIPAL };
  const moments = demoHistory(docs, now, seed + 2);
  const snapshotIds: string[] = [];
  let membersCreated = 0;
  let previous = new Map<string, string>();
  let result: CrmImportResult | null = null;
  for (const [i, moment] of moments.entries()) {
    const current = new Map(moment.deals.map((deal) => [deal.id, JSON.stringify(deal)]));
    const changed = moment.deals.filter((deal) => previous.get(deal.id) !== current.get(deal.id));
    previous = current;
    result = await importCrmData(
      caller,
      {
        pipelines: docs.pipelines,
        owners: docs.owners,
        deals: { results: i === 0 ? moment.deals : changed },
        snapshotAt: moment.at.toISOString(),
        ...(i === 0 ? { backfill: true } : { mode: 'incremental', force: true }),
      },
      { now, onProgress, demo: true },
    );
    snapshotIds.push(...result.snapshotIds);
    membersCreated += result.counts.membersCreated;
  }
  return { ...result!, snapshotIds, counts: { ...result!.counts, membersCreated } };
}

/** Where the gateway runs, as the configuration says (config.ts). */
export interface SeedPolicy {
  /** A MONGODB_URI database, which other gateways may share: never seeded. */
  shared: boolean;
  /** SEED_DEMO. */
  seedDemo: boolean;
}

/** On a shared database, a pending import younger than this may still be running elsewhere. */
const SHARED_DB_IMPORT_GRACE_MS = 6 * 60 * 60 * 1000;

/** Collections whose content means "this database is in use": any document and the demo stays out. */
const IN_USE = ['pipeline_snapshots', 'members', 'teams', 'settings', 'targets'];

/**
 * Where the seed records its progress: `loading` before its first write, `loaded` after its last.
 * A start that finds `loading` knows the previous one was stopped mid-seed (Ctrl-C, SIGKILL, a
 * crash): nobody else can have written since (the gateway listens only after seeding, and the data
 * directory is locked), so everything is cleared and the demo loaded again.
 */
const SEED_STATE = { collection: 'gateway_state', id: 'demo-seed' } as const;

type SeedState = { _id: string; state: 'loading' | 'loaded'; at: Date };

/**
 * Empties every collection but the seed's own record and the version counters: what a stopped seed
 * left, indexes kept. The counters only ever grow (caches compare them), so they are bumped instead.
 */
async function clearPartialSeed(connection: Connection): Promise<void> {
  const db = connection.db!;
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (name !== SEED_STATE.collection && name !== VERSIONS_COLLECTION)
      await db.collection(name).deleteMany({});
  }
  await bumpVersions(connection, SCOPES);
}

/**
 * Start-up step after connecting. First converts a database that stored a copy of every deal per
 * snapshot to opportunity versions (migrateOpportunityCopies). Then removes what a crashed import
 * left (pending snapshots and what they created): all of it on the embedded database, only imports older than six hours on a
 * MONGODB_URI database that other gateways may share. Then seeds the demo company when the
 * database is empty, or again when the last seed was stopped half-way (SEED_STATE), but only on
 * the embedded database (never on a shared one) and unless `policy.seedDemo` is false.
 * Answers the seed result, or null when nothing was seeded. `connection` must be the default
 * mongoose connection, the one the models use.
 */
export async function seedDemoIfEmpty(
  connection: Connection,
  policy: SeedPolicy,
  options: SeedDemoOptions = {},
): Promise<SeedDemoResult | null> {
  const { shared } = policy;
  // The embedded database has one process (its directory is locked): whatever is pending crashed.
  // An external one may be shared by several gateways, one of which may be importing right now.
  await migrateOpportunityCopies(connection);
  if (!shared) await clearImportLease();
  await discardPendingImports(
    shared ? { startedBefore: new Date(Date.now() - SHARED_DB_IMPORT_GRACE_MS) } : {},
  );
  if (shared) return null;
  if (!policy.seedDemo) return null;
  const states = connection.db!.collection<SeedState>(SEED_STATE.collection);
  const previous = await states.findOne({ _id: SEED_STATE.id });
  if (previous?.state === 'loaded') return null;
  if (previous?.state === 'loading') {
    await clearPartialSeed(connection);
  } else {
    for (const name of IN_USE) {
      if ((await connection.collection(name).findOne({}, { projection: { _id: 1 } })) !== null)
        return null;
    }
  }
  options.onStart?.();
  await states.updateOne(
    { _id: SEED_STATE.id },
    { $set: { state: 'loading', at: new Date() } },
    { upsert: true },
  );
  const result = await seedDemo(options);
  await states.updateOne({ _id: SEED_STATE.id }, { $set: { state: 'loaded', at: new Date() } });
  return result;
}
