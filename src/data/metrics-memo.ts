import type { MetricEnvironment } from '../domain/evaluate-metric';
import type { PipelineFacts } from '../domain/pipeline-facts';
import type { MetricSelection } from '../domain/metric-selection';

/** Evaluations kept per facts object (the settings may go back and forth). */
const PER_FACTS = 4;

interface Evaluation {
  env: MetricEnvironment;
  selection: MetricSelection;
}

/**
 * Every metric of a committed pipeline's facts as evaluated lately, per environment (currency,
 * period and targets array). Facts are immutable and live as long as the snapshot cache keeps
 * them; the targets array is the app's cached one (DataAccess), replaced whenever the targets'
 * version moves. So an evaluation is valid exactly while the facts object and the three parts of
 * its environment are the ones it was made with, and it goes with the facts object.
 */
export class MetricsMemo {
  private readonly evaluations = new WeakMap<PipelineFacts, Evaluation[]>();

  get(facts: PipelineFacts, env: MetricEnvironment): MetricSelection | undefined {
    return this.evaluations
      .get(facts)
      ?.find(
        (e) =>
          e.env.currency === env.currency &&
          e.env.period === env.period &&
          e.env.targets === env.targets,
      )?.selection;
  }

  set(facts: PipelineFacts, env: MetricEnvironment, selection: MetricSelection): void {
    const kept = this.evaluations.get(facts) ?? [];
    this.evaluations.set(facts, [{ env, selection }, ...kept.slice(0, PER_FACTS - 1)]);
  }
}
