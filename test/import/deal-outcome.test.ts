import { dealOutcome, flaggedOutcome, stageForFlags } from '../../src/import/deal-outcome';
import type { NormalisedDefinition, NormalisedStage } from '../../src/import/normalised.types';

const stage = (id: string, isClosed: boolean, probability: number, order = 0): NormalisedStage => ({
  id,
  label: id,
  order,
  isClosed,
  probability,
});
const OPEN = stage('open', false, 0.4);
const WON = stage('won', true, 1);
const LOST = stage('lost', true, 0);

describe('flaggedOutcome', () => {
  it('reads hs_is_closed_won / hs_is_closed_lost "true", and nothing from both or neither', () => {
    expect(flaggedOutcome({ hs_is_closed_won: 'true', hs_is_closed_lost: 'false' })).toBe('won');
    expect(flaggedOutcome({ hs_is_closed_won: 'false', hs_is_closed_lost: 'TRUE' })).toBe('lost');
    expect(flaggedOutcome({ hs_is_closed_won: 'true', hs_is_closed_lost: 'true' })).toBeNull();
    expect(flaggedOutcome({ hs_is_closed: 'true' })).toBeNull();
  });
});

describe('dealOutcome', () => {
  it('follows the stage metadata when it decides, whatever the flags', () => {
    expect(dealOutcome(OPEN, 'decides', { hs_is_closed_won: 'true' })).toBe('open');
    expect(dealOutcome(LOST, 'decides', { hs_is_closed_won: 'true' })).toBe('lost');
    expect(dealOutcome(WON, 'decides', {})).toBe('won');
  });

  it('takes the flags where the stage cannot tell won from lost, else lost', () => {
    const half = stage('half', true, 0.5);
    expect(dealOutcome(half, 'won-or-lost-unknown', { hs_is_closed_won: 'true' })).toBe('won');
    expect(dealOutcome(half, 'won-or-lost-unknown', { hs_is_closed_lost: 'true' })).toBe('lost');
    expect(dealOutcome(half, 'won-or-lost-unknown', {})).toBe('lost');
    // hs_is_closed says nothing here: the stage is closed.
    expect(dealOutcome(half, 'won-or-lost-unknown', { hs_is_closed: 'false' })).toBe('lost');
  });

  it('where the stage cannot tell whether it is closed, also reads hs_is_closed, else open', () => {
    const unknown = stage('unknown', false, 0);
    expect(dealOutcome(unknown, 'closed-unknown', { hs_is_closed_won: 'true' })).toBe('won');
    expect(dealOutcome(unknown, 'closed-unknown', { hs_is_closed: 'true' })).toBe('lost');
    expect(dealOutcome(unknown, 'closed-unknown', { hs_is_closed: 'false' })).toBe('open');
    expect(dealOutcome(unknown, 'closed-unknown', {})).toBe('open');
  });
});

describe('stageForFlags', () => {
  const definition = (stages: NormalisedStage[]): NormalisedDefinition => ({
    definitionId: 'default',
    label: 'Sales',
    displayOrder: 0,
    stages,
  });
  const decides = () => 'decides' as const;

  it('places a flagged deal in the one stage of its pipeline with that outcome', () => {
    expect(
      stageForFlags(definition([OPEN, WON, LOST]), decides, { hs_is_closed_lost: 'true' }),
    ).toEqual({ stage: LOST, outcome: 'lost' });
    expect(
      stageForFlags(definition([OPEN, WON, LOST]), decides, { hs_is_closed_won: 'true' }),
    ).toEqual({ stage: WON, outcome: 'won' });
  });

  it('places nothing without a flag, or when the pipeline has no such stage or several', () => {
    expect(stageForFlags(definition([OPEN, WON, LOST]), decides, { hs_is_closed: 'true' })).toEqual(
      {
        stage: null,
        why: 'neither hs_is_closed_won nor hs_is_closed_lost is "true" alone',
      },
    );
    expect(stageForFlags(definition([OPEN, WON]), decides, { hs_is_closed_lost: 'true' })).toEqual({
      stage: null,
      why: 'hs_is_closed_lost is "true" but pipeline "default" has no lost stages',
    });
    expect(
      stageForFlags(definition([OPEN, LOST, stage('lost2', true, 0)]), decides, {
        hs_is_closed_lost: 'true',
      }),
    ).toEqual({
      stage: null,
      why: 'hs_is_closed_lost is "true" but pipeline "default" has 2 lost stages',
    });
    // A stage whose metadata does not decide is no candidate.
    expect(
      stageForFlags(
        definition([OPEN, LOST]),
        (id) => (id === 'lost' ? 'won-or-lost-unknown' : 'decides'),
        { hs_is_closed_lost: 'true' },
      ).stage,
    ).toBeNull();
  });
});
