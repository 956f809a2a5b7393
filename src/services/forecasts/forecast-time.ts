import type { AuthenticatedContext } from '../../context/request-context';
import { currentPeriod, parsePeriodName, periodName } from '../../domain/forecast-period';
import type { PeriodSlot, PeriodUnit } from '../../domain/period';
import { BadUserInputError, ConflictError } from '../../errors';
import { LATEST } from '../../loaders/pipeline.loaders';
import { SETTINGS_ID } from '../../models/settings.model';

/**
 * The forecast clock: the later of the server's clock and the latest snapshot's `snapshot_at`.
 * Forecasts are as of the data, so a snapshot imported with a later date (`force`) moves them on:
 * periods end, cadence intervals turn, and calls are dated by it (docs/forecasts.md).
 */
export async function forecastClock(ctx: AuthenticatedContext): Promise<Date> {
  const latest = await ctx.loaders.latestSnapshot.load(LATEST);
  return new Date(Math.max(Date.now(), latest ? latest.snapshotAt.getTime() : 0));
}

/** A period a forecast is about, resolved in the configured unit. */
export interface ForecastPeriod {
  unit: PeriodUnit;
  slot: PeriodSlot;
  /** `2026-Q4`. */
  name: string;
}

/**
 * The period `name` names (400 naming the field when it names none in the configured unit), or
 * the current one at `clock` when it is absent. Period not set: 409.
 */
export async function resolveForecastPeriod(
  ctx: AuthenticatedContext,
  name: string | null | undefined,
  clock: Date,
): Promise<ForecastPeriod> {
  const { period: unit } = await ctx.loaders.metricSettings.load(SETTINGS_ID);
  if (!unit)
    throw new ConflictError(
      'The period is not set yet: forecasts are per period; an admin sets it with POST /settings/periods',
    );
  if (name === null || name === undefined) {
    const slot = currentPeriod(unit, clock);
    return { unit, slot, name: periodName(slot) };
  }
  const parsed = parsePeriodName(name, unit);
  if ('problem' in parsed)
    throw new BadUserInputError(`Invalid period: ${parsed.problem}`, [
      { field: 'period', message: parsed.problem },
    ]);
  return { unit, slot: parsed.slot, name: periodName(parsed.slot) };
}
