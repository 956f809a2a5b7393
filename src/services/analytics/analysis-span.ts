import type { AuthenticatedContext } from '../../context/request-context';
import { inScopeOf } from './pipeline-scope';
import { BadUserInputError, ConflictError, NotFoundError } from '../../errors';
import { periodOf } from '../../domain/period';
import type { CloseWindow } from '../../domain/movement';
import type { PipelineScope } from '../../domain/deal-states';
import type { PipelineView, SnapshotView } from '../../domain/snapshot-views';
import { LATEST } from '../../loaders/pipeline.loaders';
import { SETTINGS_ID } from '../../models/settings.model';
import { findPipeline, resolveSnapshot } from '../pipeline.service';

const DAY_MS = 86_400_000;
const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** `YYYY-MM-DD` as the UTC midnight starting that day; null when it is not a date of the calendar. */
export function parseDay(value: string): number | null {
  const match = DATE.exec(value);
  if (!match) return null;
  const [year, month, day] = match.slice(1).map(Number);
  const ms = Date.UTC(year, month - 1, day);
  return new Date(ms).toISOString().slice(0, 10) === value ? ms : null;
}

/** The UTC day of an instant, `YYYY-MM-DD`. */
export function isoDay(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}

function invalid(field: string, message: string, got: string): BadUserInputError {
  return new BadUserInputError(`Invalid ${field}: ${message}, got "${got.slice(0, 60)}"`, [
    { field, message },
  ]);
}

/** A date `YYYY-MM-DD` (400 when it is not one), as the instant its day starts. */
export function requireDay(value: string, field: string): number {
  const day = parseDay(value);
  if (day === null) throw invalid(field, 'expected a date YYYY-MM-DD', value);
  return day;
}

/**
 * The snapshot a `from` or `to` names: a snapshot id (404 when unknown or removed, saying so), or
 * a date `YYYY-MM-DD`, meaning the latest committed snapshot at or before the end of that day,
 * UTC (404 naming the earliest snapshot when there is none).
 */
export async function snapshotAt(
  ctx: AuthenticatedContext,
  value: string,
  field: string,
): Promise<SnapshotView> {
  if (!DATE.test(value)) return resolveSnapshot(ctx, value);
  const day = requireDay(value, field);
  const snapshot = await ctx.loaders.snapshotBefore.load(day + DAY_MS);
  if (snapshot) return snapshot;
  const earliest = await ctx.loaders.earliestSnapshot.load(LATEST);
  if (!earliest)
    throw new NotFoundError('No pipeline snapshot yet: import CRM data first (POST /crm/imports)');
  throw new NotFoundError(
    `No snapshot at or before ${value} (end of day, UTC): the earliest is ${earliest.id}, of ${earliest.snapshotAt.toISOString()}`,
  );
}

/** Two moments resolved to snapshots; `from` after `to`: 400 (before any read when both are dates). */
export async function resolveSpan(
  ctx: AuthenticatedContext,
  from: string,
  to: string,
): Promise<{ from: SnapshotView; to: SnapshotView }> {
  const fromDay = DATE.test(from) ? requireDay(from, 'from') : null;
  const toDay = DATE.test(to) ? requireDay(to, 'to') : null;
  if (fromDay !== null && toDay !== null && fromDay > toDay)
    throw invalid('from', `must not be after to (${to})`, from);
  const [start, end] = await Promise.all([
    snapshotAt(ctx, from, 'from'),
    snapshotAt(ctx, to, 'to'),
  ]);
  if (start.snapshotAt.getTime() > end.snapshotAt.getTime())
    throw invalid(
      'from',
      `its snapshot (${start.snapshotAt.toISOString()}) must not be after to's (${end.snapshotAt.toISOString()})`,
      from,
    );
  return { from: start, to: end };
}

/** A pipeline as analyses read it: its definition and which of the definition's deals it holds. */
export interface AnalysedPipeline {
  pipeline: PipelineView;
  scope: PipelineScope;
}

/**
 * The pipeline `pipelineId` in the snapshot `to`, else in `from` (a member's pipeline exists only
 * while the member owns deals); 404 when it is in neither.
 */
export async function analysedPipeline(
  ctx: AuthenticatedContext,
  pipelineId: string,
  snapshots: readonly SnapshotView[],
): Promise<AnalysedPipeline> {
  for (const snapshot of [...snapshots].reverse()) {
    const pipeline = await findPipeline(ctx, snapshot.id, pipelineId);
    if (pipeline) return { pipeline, scope: inScopeOf(pipeline) };
  }
  throw new NotFoundError(
    `Pipeline ${pipelineId} not found in snapshot ${snapshots.map((s) => s.id).join(' or ')}`,
  );
}

/** The window of close dates: `start`/`end` are the days shown, null for `all`. */
export interface ResolvedWindow {
  window: CloseWindow;
  days: { start: string; end: string } | null;
}

/**
 * `close_window`: `period` (default: the configured period containing the snapshot `to`'s date;
 * 409 while the period is not set), `all`, or `YYYY-MM-DD..YYYY-MM-DD` (both days included).
 */
export async function resolveCloseWindow(
  ctx: AuthenticatedContext,
  value: string | null | undefined,
  to: SnapshotView,
): Promise<ResolvedWindow> {
  const asked = value ?? 'period';
  if (asked === 'all') return { window: null, days: null };
  if (asked === 'period') {
    const { period } = await ctx.loaders.metricSettings.load(SETTINGS_ID);
    if (!period)
      throw new ConflictError(
        'Cannot use close_window=period: the period is not set (POST /settings/periods); ask close_window=all or YYYY-MM-DD..YYYY-MM-DD',
      );
    const slot = periodOf(period, to.snapshotAt);
    return {
      window: { startMs: slot.startsAt.getTime(), endMs: slot.endsBefore.getTime() },
      days: { start: slot.start, end: slot.end },
    };
  }
  const [start, end, ...rest] = asked.split('..');
  const startMs = start === undefined ? null : parseDay(start);
  const endMs = end === undefined ? null : parseDay(end);
  const expected = 'expected period, all, or YYYY-MM-DD..YYYY-MM-DD';
  if (rest.length > 0 || startMs === null || endMs === null)
    throw invalid('close_window', expected, asked);
  if (startMs > endMs)
    throw invalid('close_window', 'its first day must not be after its last', asked);
  return { window: { startMs, endMs: endMs + DAY_MS }, days: { start, end: end! } };
}
