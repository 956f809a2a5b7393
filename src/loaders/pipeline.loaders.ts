import DataLoader from 'dataloader';
import { trusted } from 'mongoose';
import type { LoaderSource } from './lazy-loaders';
import { PeriodUnit } from '../domain/period';
import { SETTINGS_ID, SettingsDoc, SettingsModel } from '../models/settings.model';
import { SnapshotModel } from '../models/snapshot.model';
import { TargetDoc, TargetModel } from '../models/target.model';
import type { PipelineFacts } from '../domain/pipeline-facts';
import type { DealStates } from '../domain/deal-states';
import type { DefinitionView, PipelineView, SnapshotView } from '../domain/snapshot-views';

/** What the metrics need from the settings; null fields are not set yet. */
export interface MetricSettings {
  currency: string | null;
  period: PeriodUnit | null;
}

/** The key of the latest-snapshot loader: it has one value per request. */
export const LATEST = 'latest';

/** A time range `[from, to)`: the key of the snapshots-in-window loader. */
export interface SnapshotWindow {
  from: Date;
  to: Date;
}

const windowKey = (w: SnapshotWindow) => `${w.from.toISOString()}/${w.to.toISOString()}`;

/** The latest snapshot as its loader answers it. */
export function latestSnapshotView(
  doc: { _id: string; snapshotAt: Date } | null,
): SnapshotView | null {
  return doc ? { id: doc._id, snapshotAt: new Date(doc.snapshotAt) } : null;
}

/** What the metrics need of the settings document (null: none yet). */
export function metricSettingsOf(doc: SettingsDoc | null | undefined): MetricSettings {
  return { currency: doc?.currency ?? null, period: doc?.period ?? null };
}

/** `<snapshotId>:<pipelineId>`, the key of the facts loader (and the facts' `_id`). */
export function factsKey(snapshotId: string, pipelineId: string): string {
  return `${snapshotId}:${pipelineId}`;
}

/** The key of the deal-states loader. */
export function dealStatesKey(snapshotId: string, definitionId: string): string {
  return `${snapshotId}\u0000${definitionId}`;
}

function splitDealStatesKey(key: string): readonly [string, string] {
  const at = key.indexOf('\u0000');
  return [key.slice(0, at), key.slice(at + 1)];
}

function splitFactsKey(key: string): readonly [string, string] {
  const at = key.indexOf(':');
  return [key.slice(0, at), key.slice(at + 1)];
}

/**
 * Loader factories of the pipelines half of the graph (snapshots, definitions, stages, pipelines,
 * metrics), by name; each request makes the ones it uses (lazy-loaders.ts).
 * Committed-snapshot data comes through the app's snapshot cache; settings, targets and the latest
 * snapshot through its version-checked caches (DataAccess), at most once per request. Each batch
 * function answers in key order. Filter operators are ours and marked `trusted()`: filters are
 * sanitised globally.
 */
export const pipelineLoaders = {
  /** The latest committed snapshot (greatest `snapshotAt`), or null before the first import. */
  latestSnapshot: ({ access, data }: LoaderSource) =>
    new DataLoader<typeof LATEST, SnapshotView | null>(async (keys) => {
      const doc = await access.latestSnapshot.get(data, LATEST, () =>
        SnapshotModel.findOne({ status: 'committed' }, { snapshotAt: 1 })
          .sort({ snapshotAt: -1, _id: -1 })
          .lean<{ _id: string; snapshotAt: Date }>()
          .exec(),
      );
      const snapshot = latestSnapshotView(doc);
      if (snapshot) access.snapshots.prime(data, snapshot);
      return keys.map(() => snapshot);
    }),
  /** Committed snapshots by id; null for unknown or uncommitted ones. */
  snapshot: ({ access, data }: LoaderSource) =>
    new DataLoader<string, SnapshotView | null>((ids) => access.snapshots.snapshots(data, ids)),
  /**
   * Committed snapshots with `snapshotAt` in a window, oldest first. Every time series of one
   * request covers the same window, so a dashboard of series reads them once.
   */
  snapshotsInWindow: ({ access, data }: LoaderSource) =>
    new DataLoader<SnapshotWindow, SnapshotView[], string>(
      (windows) => {
        return Promise.all(
          windows.map(async (w) => {
            const docs = await SnapshotModel.find(
              { status: 'committed', snapshotAt: trusted({ $gte: w.from, $lt: w.to }) },
              { snapshotAt: 1 },
            )
              .sort({ snapshotAt: 1, _id: 1 })
              .lean();
            const snapshots = docs.map((doc) => ({
              id: doc._id,
              snapshotAt: new Date(doc.snapshotAt),
            }));
            for (const snapshot of snapshots) access.snapshots.prime(data, snapshot);
            return snapshots;
          }),
        );
      },
      { cacheKeyFn: windowKey },
    ),
  /**
   * The latest committed snapshot dated before an instant (ms), or null when none is: what a date
   * of movement and stage analytics means (the latest snapshot at or before the end of that day).
   */
  snapshotBefore: ({ access, data }: LoaderSource) =>
    new DataLoader<number, SnapshotView | null>((instants) =>
      Promise.all(
        instants.map(async (ms) => {
          const doc = await SnapshotModel.findOne(
            { status: 'committed', snapshotAt: trusted({ $lt: new Date(ms) }) },
            { snapshotAt: 1 },
          )
            .sort({ snapshotAt: -1, _id: -1 })
            .lean<{ _id: string; snapshotAt: Date }>();
          const snapshot = latestSnapshotView(doc);
          if (snapshot) access.snapshots.prime(data, snapshot);
          return snapshot;
        }),
      ),
    ),
  /** The earliest committed snapshot, or null before the first import (named by a 404). */
  earliestSnapshot: ({ access, data }: LoaderSource) =>
    new DataLoader<typeof LATEST, SnapshotView | null>(async (keys) => {
      const doc = await SnapshotModel.findOne({ status: 'committed' }, { snapshotAt: 1 })
        .sort({ snapshotAt: 1, _id: 1 })
        .lean<{ _id: string; snapshotAt: Date }>();
      const snapshot = latestSnapshotView(doc);
      if (snapshot) access.snapshots.prime(data, snapshot);
      return keys.map(() => snapshot);
    }),
  /** Deal states by `dealStatesKey(snapshotId, definitionId)`; null: no deal of it there. */
  dealStates: ({ access, data }: LoaderSource) =>
    new DataLoader<string, DealStates | null>((keys) =>
      Promise.all(
        keys.map((key) => {
          const [snapshotId, definitionId] = splitDealStatesKey(key);
          return access.snapshots.dealStates(data, snapshotId, definitionId);
        }),
      ),
    ),
  /** Definitions of a committed snapshot, by display order. */
  definitionsBySnapshot: ({ access, data }: LoaderSource) =>
    new DataLoader<string, DefinitionView[]>((ids) =>
      Promise.all(ids.map((id) => access.snapshots.definitions(data, id))),
    ),
  /** Every pipeline of a committed snapshot. */
  pipelinesBySnapshot: ({ access, data }: LoaderSource) =>
    new DataLoader<string, PipelineView[]>((ids) =>
      Promise.all(ids.map((id) => access.snapshots.pipelines(data, id))),
    ),
  /** Facts by `factsKey(snapshotId, pipelineId)`; null where the pipeline is not in that snapshot. */
  pipelineFacts: ({ access, data }: LoaderSource) =>
    new DataLoader<string, PipelineFacts | null>((keys) =>
      access.snapshots.facts(data, keys.map(splitFactsKey)),
    ),
  /** Currency and period, read once per request. */
  metricSettings: ({ access, data }: LoaderSource) =>
    new DataLoader<typeof SETTINGS_ID, MetricSettings>(async (keys) => {
      const doc = await access.settings.get(data, SETTINGS_ID, () =>
        SettingsModel.findById(SETTINGS_ID).lean<SettingsDoc>().exec(),
      );
      const settings = metricSettingsOf(doc);
      return keys.map(() => settings);
    }),
  /** Every member's targets for a year (one document per member at most). */
  targetsByYear: ({ access, data }: LoaderSource) =>
    new DataLoader<number, TargetDoc[]>(async (years) => {
      return access.targetsByYear.getMany(data, years, String, async (missing) => {
        const docs = await TargetModel.find({ year: trusted({ $in: missing }) }).lean();
        return missing.map((year) => docs.filter((doc) => doc.year === year));
      });
    }),
};
