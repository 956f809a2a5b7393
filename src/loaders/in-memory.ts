import type { MemberDoc } from '../models/member.model';
import { SETTINGS_ID } from '../models/settings.model';
import type { TargetDoc } from '../models/target.model';
import type { TeamDoc } from '../models/team.model';
import type { PipelineFacts } from '../services/metrics/facts';
import type { PipelineView, SnapshotView } from '../domain/snapshot-views';
import type { LoaderSource } from './lazy-loaders';
import {
  LATEST,
  latestSnapshotView,
  metricSettingsOf,
  type MetricSettings,
} from './pipeline.loaders';

/**
 * What the loaders would answer, when the app's caches already hold it under the request's view;
 * undefined when they do not (a miss, or a view not read yet), and the caller goes through the
 * loaders. The same caches answer either way, and reads of versioned data are noted the same way
 * (VersionedCache.peek), so an answer computed from these is the one the loaders would give. They
 * exist for answers computed again after a write, whose data is all in memory: going through
 * DataLoader's batching and its promises is then most of their cost.
 */
export function latestSnapshotNow({ access, data }: LoaderSource): SnapshotView | null | undefined {
  const doc = access.latestSnapshot.peek(data, LATEST);
  return doc === undefined ? undefined : latestSnapshotView(doc);
}

/** The snapshot `snapshotId` names (when given) or the latest one, if cached. */
export function snapshotNow(
  source: LoaderSource,
  snapshotId?: string | null,
): SnapshotView | null | undefined {
  return snapshotId
    ? source.access.snapshots.peekSnapshot(source.data, snapshotId)
    : latestSnapshotNow(source);
}

/** One pipeline of a cached snapshot; null when the snapshot's cached pipelines lack it. */
export function pipelineNow(
  source: LoaderSource,
  snapshotId: string,
  pipelineId: string,
): PipelineView | null | undefined {
  const pipelines = source.access.snapshots.peekPipelines(source.data, snapshotId);
  return pipelines === undefined ? undefined : (pipelines.find((p) => p.id === pipelineId) ?? null);
}

export function factsNow(
  source: LoaderSource,
  snapshotId: string,
  pipelineId: string,
): PipelineFacts | null | undefined {
  return source.access.snapshots.peekFacts(source.data, snapshotId, pipelineId);
}

export function metricSettingsNow({ access, data }: LoaderSource): MetricSettings | undefined {
  const doc = access.settings.peek(data, SETTINGS_ID);
  return doc === undefined ? undefined : metricSettingsOf(doc);
}

export function targetsOfYearNow(
  { access, data }: LoaderSource,
  year: number,
): TargetDoc[] | undefined {
  return access.targetsByYear.peek(data, String(year));
}

/** Members by id, in key order, if every one of them is cached (null: no such member). */
export function membersNow(
  { access, data }: LoaderSource,
  ids: readonly string[],
): Array<MemberDoc | null> | undefined {
  const members: Array<MemberDoc | null> = [];
  for (const id of ids) {
    const member = memberNow({ access, data }, id);
    if (member === undefined) return undefined;
    members.push(member);
  }
  return members;
}

/** One member (null: no such member), if cached. */
export function memberNow(
  { access, data }: LoaderSource,
  id: string,
): MemberDoc | null | undefined {
  return access.membersById.peek(data, id);
}

/** One team (null: no such team), if cached. */
export function teamNow({ access, data }: LoaderSource, id: string): TeamDoc | null | undefined {
  return access.teamsById.peek(data, id);
}
