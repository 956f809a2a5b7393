import type { Outcome } from '../models/opportunity.model';
import type { NormalisedDefinition, NormalisedStage } from './normalised.types';
import { parseBoolean } from './parse-values';

/**
 * How far a stage's metadata decides the outcome of its deals: `decides` (open, or closed with
 * probability 1 or 0), `closed-unknown` (no usable `metadata.isClosed`), `won-or-lost-unknown`
 * (closed, with a probability other than 1 or 0, or none).
 */
export type StageCertainty = 'decides' | 'closed-unknown' | 'won-or-lost-unknown';

type Properties = Record<string, string | null | undefined>;

/** The outcome the stage metadata alone gives: won is closed with probability 1, lost any other closed. */
export function stageOutcome(stage: NormalisedStage): Outcome {
  if (!stage.isClosed) return 'open';
  return stage.probability === 1 ? 'won' : 'lost';
}

/** What the deal's own flags say: `hs_is_closed_won` / `hs_is_closed_lost` "true", else null. */
export function flaggedOutcome(props: Properties): 'won' | 'lost' | null {
  const won = parseBoolean(props.hs_is_closed_won);
  const lost = parseBoolean(props.hs_is_closed_lost);
  if (won.kind === 'ok' && won.value) return lost.kind === 'ok' && lost.value ? null : 'won';
  if (lost.kind === 'ok' && lost.value) return 'lost';
  return null;
}

/**
 * A deal's outcome (docs/importing.md, "Won, lost or open"): the stage metadata when it decides;
 * else `hs_is_closed_won` / `hs_is_closed_lost` when one of them is "true" (both: undecided); else,
 * when the stage's `isClosed` is unknown, `hs_is_closed: "true"` is lost and "false" open; else
 * the stage's default (open without isClosed, lost when closed without probability 1).
 */
export function dealOutcome(
  stage: NormalisedStage,
  certainty: StageCertainty,
  props: Properties,
): Outcome {
  if (certainty === 'decides') return stageOutcome(stage);
  const flagged = flaggedOutcome(props);
  if (flagged) return flagged;
  if (certainty === 'closed-unknown') {
    const closed = parseBoolean(props.hs_is_closed);
    if (closed.kind === 'ok') return closed.value ? 'lost' : 'open';
  }
  return stageOutcome(stage);
}

/**
 * The stage a deal without a usable stage belongs in when its flags say won or lost: the one
 * stage of its pipeline with that outcome by metadata. Null with the reason when there is none
 * or more than one, or when the flags say neither.
 */
export function stageForFlags(
  definition: NormalisedDefinition,
  certainty: (stageId: string) => StageCertainty,
  props: Properties,
): { stage: NormalisedStage; outcome: 'won' | 'lost' } | { stage: null; why: string } {
  const outcome = flaggedOutcome(props);
  if (outcome === null)
    return { stage: null, why: 'neither hs_is_closed_won nor hs_is_closed_lost is "true" alone' };
  const candidates = definition.stages.filter(
    (s) => certainty(s.id) === 'decides' && stageOutcome(s) === outcome,
  );
  if (candidates.length === 1) return { stage: candidates[0], outcome };
  const flag = outcome === 'won' ? 'hs_is_closed_won' : 'hs_is_closed_lost';
  return {
    stage: null,
    why: `${flag} is "true" but pipeline "${definition.definitionId}" has ${candidates.length === 0 ? 'no' : candidates.length} ${outcome} stages`,
  };
}
