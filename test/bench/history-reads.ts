/**
 * Internal (benchmark): the read sweeps `bench:history` times at day 0 and at the last day:
 * GET /pipelines/metrics of every pipeline, and GET /pipelines/timeseries of every pipeline over
 * the whole simulated range, one request after the other.
 */
import type { HistoryClient } from './history-client';

export interface Sweep {
  requests: number;
  /** The whole sweep, ms. */
  totalMs: number;
  /** Its first request, ms (after a restart: the first read of the data). */
  firstMs: number;
  /** The median request, ms. */
  medianMs: number;
}

export interface ReadCost {
  metrics: { cold: Sweep; warm: Sweep };
  timeseries: { cold: Sweep; warm: Sweep };
}

const WARM_SWEEPS = 3;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function sweep(client: HistoryClient, paths: string[]): Promise<Sweep> {
  const times: number[] = [];
  for (const path of paths) {
    const started = performance.now();
    const answer = await client.request('GET', path);
    times.push(performance.now() - started);
    if (answer.status !== 200)
      throw new Error(`GET ${path} answered ${answer.status}: ${answer.body.slice(0, 500)}`);
  }
  return {
    requests: paths.length,
    totalMs: times.reduce((a, b) => a + b, 0),
    firstMs: times[0],
    medianMs: median(times),
  };
}

/** The sweep whose total is the median of `WARM_SWEEPS` runs. */
async function warmSweep(client: HistoryClient, paths: string[]): Promise<Sweep> {
  const runs: Sweep[] = [];
  for (let i = 0; i < WARM_SWEEPS; i += 1) runs.push(await sweep(client, paths));
  return runs.sort((a, b) => a.totalMs - b.totalMs)[Math.floor(runs.length / 2)];
}

/**
 * Cold (the first sweep, which must be the first reads since the gateway started) then warm.
 * `weeks`: the time series' duration, covering every simulated day.
 */
export async function measureReads(
  client: HistoryClient,
  pipelineIds: string[],
  weeks: number,
): Promise<ReadCost> {
  const q = encodeURIComponent;
  const metrics = pipelineIds.map((id) => `/pipelines/metrics?pipeline_id=${q(id)}`);
  const series = pipelineIds.map(
    (id) =>
      `/pipelines/timeseries?pipeline_id=${q(id)}&metric_name=pipeline_value&duration=${weeks}`,
  );
  const coldMetrics = await sweep(client, metrics);
  const coldSeries = await sweep(client, series);
  return {
    metrics: { cold: coldMetrics, warm: await warmSweep(client, metrics) },
    timeseries: { cold: coldSeries, warm: await warmSweep(client, series) },
  };
}
