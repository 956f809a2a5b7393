/** Internal (benchmark): `bench:history`'s figures, its tables and its acceptance ratios. */
import type { ReadCost } from './history-reads';

const MB = 1024 * 1024;

export interface DayFigures {
  day: number;
  snapshotAt: string;
  /** Deals in the day's import body (incremental: changed, new and archived). */
  sent: number;
  bodyBytes: number;
  importSeconds: number;
  liveDeals: number;
  openDeals: number;
  dataDirBytes: number;
  gatewayRss: number;
  /** The store process's RSS (`--db uri`), else null. */
  storeRss: number | null;
  documents: Record<string, number>;
}

export interface RestartFigures {
  day: number;
  /** The data directory with every process stopped. */
  dataDirAtRest: number;
  /** `--db uri`: the store's start-up (spawn to "listening") and RSS once up. */
  storeStartSeconds: number | null;
  storeRss: number | null;
  startSeconds: number;
  rssAfterStart: number;
  rssAfterReads: number;
  documents: Record<string, number>;
  /** BSON bytes per collection (indexes not included). */
  bytes: Record<string, number>;
  pipelines: number;
  reads: ReadCost;
}

export interface HistoryResult {
  options: { deals: number; days: number; mode: string; db: string; seed: number };
  days: DayFigures[];
  restarts: [RestartFigures, RestartFigures];
}

const total = (documents: Record<string, number>): number =>
  Object.values(documents).reduce((a, b) => a + b, 0);
const mb = (bytes: number | null): string =>
  bytes === null ? '–' : `${(bytes / MB).toFixed(0)} MB`;
const ms = (value: number): string => (value >= 100 ? value.toFixed(0) : value.toFixed(1));

function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function table(rows: string[][]): void {
  const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => row[i].length)));
  rows.forEach((row, r) => {
    console.log(
      row
        .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]) : cell.padStart(widths[i])))
        .join('  '),
    );
    if (r === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

/** One line of progress for stderr. */
export function progressLine(figures: DayFigures, days: number): string {
  return (
    `day ${figures.day}/${days}: ${figures.sent} deals sent, import ${figures.importSeconds.toFixed(2)} s, ` +
    `data ${mb(figures.dataDirBytes)}, ${total(figures.documents)} documents, gateway RSS ${mb(figures.gatewayRss)}` +
    (figures.storeRss === null ? '' : `, store RSS ${mb(figures.storeRss)}`)
  );
}

export interface Ratios {
  medianIncrementalImport: number;
  rssAfterStart: number;
  startUp: number;
  dataDir: number;
  /** `--db uri`: the store process's RSS once up, day D ÷ day 0; else null. */
  storeRssAfterStart: number | null;
}

export function ratiosOf(result: HistoryResult): Ratios {
  const [first, last] = result.restarts;
  return {
    medianIncrementalImport: percentile(
      result.days.slice(1).map((d) => d.importSeconds),
      50,
    ),
    rssAfterStart: last.rssAfterStart / first.rssAfterStart,
    startUp: last.startSeconds / first.startSeconds,
    dataDir: last.dataDirAtRest / first.dataDirAtRest,
    storeRssAfterStart:
      last.storeRss === null || first.storeRss === null ? null : last.storeRss / first.storeRss,
  };
}

export function printHistory(result: HistoryResult): void {
  const { days, restarts } = result;
  const o = result.options;
  console.log(
    `\nbench:history: ${o.deals} deals, ${o.days} days, --mode ${o.mode}, --db ${o.db}, --seed ${o.seed}\n`,
  );

  // Every day when there are few, else about twenty evenly spaced and the last.
  const step = Math.max(1, Math.ceil(days.length / 20));
  const shown = days.filter((_day, i) => i % step === 0 || i === days.length - 1);
  table([
    [
      'day',
      'sent',
      'body',
      'import',
      'deals',
      'open',
      'data dir',
      'documents',
      'gateway RSS',
      'store RSS',
    ],
    ...shown.map((d) => [
      String(d.day),
      String(d.sent),
      mb(d.bodyBytes),
      `${d.importSeconds.toFixed(2)} s`,
      String(d.liveDeals),
      String(d.openDeals),
      mb(d.dataDirBytes),
      String(total(d.documents)),
      mb(d.gatewayRss),
      mb(d.storeRss),
    ]),
  ]);
  const later = days.slice(1).map((d) => d.importSeconds);
  if (later.length > 0) {
    console.log(
      `\nimports of days 1–${days.length - 1}: median ${percentile(later, 50).toFixed(2)} s, p90 ${percentile(later, 90).toFixed(2)} s, ` +
        `max ${Math.max(...later).toFixed(2)} s (day 0: ${days[0].importSeconds.toFixed(2)} s)`,
    );
  }

  console.log('\ndocuments and their bytes per collection');
  const collections = [
    ...new Set([...Object.keys(restarts[0].documents), ...Object.keys(restarts[1].documents)]),
  ].sort();
  const kb = (bytes: number | undefined): string => `${((bytes ?? 0) / 1024).toFixed(0)} KB`;
  table([
    [
      'collection',
      `day 0`,
      `day ${restarts[1].day}`,
      'day 0 bytes',
      `day ${restarts[1].day} bytes`,
    ],
    ...collections.map((name) => [
      name,
      String(restarts[0].documents[name] ?? 0),
      String(restarts[1].documents[name] ?? 0),
      kb(restarts[0].bytes[name]),
      kb(restarts[1].bytes[name]),
    ]),
    [
      'total',
      String(total(restarts[0].documents)),
      String(total(restarts[1].documents)),
      kb(total(restarts[0].bytes)),
      kb(total(restarts[1].bytes)),
    ],
  ]);

  console.log(
    '\nrestart on the same data (reads: ms; cold = first sweep after the restart, warm = median of 3 sweeps)',
  );
  const sweepCells = (r: RestartFigures): string[] => [
    `${ms(r.reads.metrics.cold.firstMs)} / ${ms(r.reads.metrics.cold.totalMs)}`,
    ms(r.reads.metrics.warm.totalMs),
    `${ms(r.reads.timeseries.cold.firstMs)} / ${ms(r.reads.timeseries.cold.totalMs)}`,
    ms(r.reads.timeseries.warm.totalMs),
  ];
  table([
    [
      'day',
      'data dir at rest',
      'store start',
      'store RSS',
      'gateway start',
      'RSS up',
      'RSS after reads',
      'pipelines',
      'metrics cold first/all',
      'metrics warm all',
      'series cold first/all',
      'series warm all',
    ],
    ...restarts.map((r) => [
      String(r.day),
      mb(r.dataDirAtRest),
      r.storeStartSeconds === null ? '–' : `${r.storeStartSeconds.toFixed(2)} s`,
      mb(r.storeRss),
      `${r.startSeconds.toFixed(2)} s`,
      mb(r.rssAfterStart),
      mb(r.rssAfterReads),
      String(r.pipelines),
      ...sweepCells(r),
    ]),
  ]);

  const ratios = ratiosOf(result);
  const [first, last] = restarts;
  const verdict = (ok: boolean): string => (ok ? 'yes' : 'NO');
  console.log('\nacceptance');
  table([
    ['criterion', 'figure', 'met'],
    [
      'median import, days 1–D, < 2 s',
      `${ratios.medianIncrementalImport.toFixed(2)} s`,
      verdict(ratios.medianIncrementalImport < 2),
    ],
    [
      'RSS after restart, day D ÷ day 0, ≤ 1.5',
      `${ratios.rssAfterStart.toFixed(2)} (${mb(last.rssAfterStart)} ÷ ${mb(first.rssAfterStart)})`,
      verdict(ratios.rssAfterStart <= 1.5),
    ],
    [
      'start-up, day D ÷ day 0, ≤ 1.5 (or day D < 3 s)',
      `${ratios.startUp.toFixed(2)} (${last.startSeconds.toFixed(2)} s ÷ ${first.startSeconds.toFixed(2)} s)`,
      verdict(ratios.startUp <= 1.5 || last.startSeconds < 3),
    ],
    [
      'data directory, day D ÷ day 0, ≤ 3',
      `${ratios.dataDir.toFixed(2)} (${mb(last.dataDirAtRest)} ÷ ${mb(first.dataDirAtRest)})`,
      verdict(ratios.dataDir <= 3),
    ],
    // With --db uri the data lives in the store process: its memory is held to the gateway's bound.
    ...(ratios.storeRssAfterStart === null
      ? []
      : [
          [
            'store RSS after restart, day D ÷ day 0, ≤ 1.5',
            `${ratios.storeRssAfterStart.toFixed(2)} (${mb(last.storeRss)} ÷ ${mb(first.storeRss)})`,
            verdict(ratios.storeRssAfterStart <= 1.5),
          ],
        ]),
  ]);
}
