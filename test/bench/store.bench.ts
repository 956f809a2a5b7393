// `npm run bench:store [-- --quick] [-- --only=ping,lookups,group,inserts,growth,placement]`: the embedded
// store's figures, each beside an in-process reference. A program that prints (and saves
// test/bench/results/store.json for a full run), not a test.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { formatNumber, printTable } from './bench-timer';
import { growthBench } from './growth-bench';
import { insertBench } from './insert-bench';
import { groupBench, lookupBench, pingBench } from './lookup-bench';
import { placementBench, type PlacementRow } from './placement-bench';

const QUICK = process.argv.includes('--quick');
const ONLY = process.argv
  .find((a) => a.startsWith('--only='))
  ?.slice('--only='.length)
  .split(',');
const SECTIONS = ['ping', 'lookups', 'group', 'inserts', 'growth', 'placement'] as const;
type Section = (typeof SECTIONS)[number];
if (ONLY) {
  const unknown = ONLY.filter((s) => !SECTIONS.includes(s as Section));
  if (unknown.length)
    throw new Error(`--only expects some of ${SECTIONS.join(',')}; got ${unknown.join(',')}`);
}
const wanted = (section: Section): boolean => !ONLY || ONLY.includes(section);
const load = (): string =>
  loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

async function ping(): Promise<unknown> {
  // The floor of any command: one round trip through the driver and the server's dispatch.
  const rate = await pingBench(QUICK ? 1000 : 3000);
  console.log(
    `\nping through the driver (the floor of every command): ${formatNumber(rate.perSecond)}/s, ${formatNumber(rate.meanMicros)} µs, ${formatNumber(rate.cpuMicros)} CPU µs`,
  );
  return rate;
}

async function lookups(): Promise<unknown> {
  const rounds = QUICK ? 1 : 5;
  const rows = await lookupBench([1_000, QUICK ? 10_000 : 100_000], QUICK ? 500 : 1000, rounds);
  printTable(
    `Lookups through the driver (in memory), beside a Map lookup; median of ${rounds} alternating rounds`,
    [
      'operation',
      'docs',
      'store ops/s',
      'mean µs',
      'CPU µs/op',
      'reference',
      'ref ops/s',
      'store/ref',
    ],
    rows.map((r) => [
      r.what,
      r.docs,
      r.store.perSecond,
      r.store.meanMicros,
      r.store.cpuMicros,
      r.referenceName,
      r.reference.perSecond,
      r.store.perSecond / r.reference.perSecond,
    ]),
  );
  const flat = ['find by _id', 'find by indexed field'].map((what) => {
    const [small, large] = rows.filter((r) => r.what === what);
    return {
      what,
      docs: large.docs,
      rateRatio: large.store.perSecond / small.store.perSecond,
      cpuRatio: large.store.cpuMicros / small.store.cpuMicros,
    };
  });
  for (const f of flat) {
    console.log(
      `${f.what}: at ${f.docs.toLocaleString('en-US')} docs the rate is ${formatNumber(f.rateRatio * 100)}% and the CPU per lookup ${formatNumber(f.cpuRatio * 100)}% of those at 1,000 docs`,
    );
  }
  return { rows, flat };
}

async function group(): Promise<unknown> {
  const result = await groupBench(10_000, QUICK ? 10 : 40);
  printTable(
    '$group over 10,000 documents, beside an array reduce',
    ['operation', 'docs', 'store runs/s', 'mean ms', 'CPU ms/run', 'ref runs/s', 'store/ref'],
    [
      [
        '$group by cat, $sum',
        result.docs,
        result.store.perSecond,
        result.store.meanMicros / 1000,
        result.store.cpuMicros / 1000,
        result.reference.perSecond,
        result.store.perSecond / result.reference.perSecond,
      ],
    ],
  );
  return result;
}

async function inserts(): Promise<unknown> {
  const result = await insertBench(QUICK ? 500 : 3000, 32);
  printTable(
    'insertOne through the driver, in memory vs on disk (acknowledged after fsync)',
    ['mode', 'writers', 'inserts/s', 'mean µs', 'CPU µs/op', 'fsyncs/write', 'store/Map.set'],
    result.rows.map((r) => [
      r.mode,
      r.concurrency,
      r.rate.perSecond,
      r.rate.meanMicros,
      r.rate.cpuMicros,
      r.fsyncsPerWrite ?? '-',
      r.rate.perSecond / result.reference.perSecond,
    ]),
  );
  console.log(`reference Map.set: ${formatNumber(result.reference.perSecond)} ops/s`);
  return result;
}

async function growth(): Promise<unknown> {
  const sizes = QUICK ? [20_000, 60_000] : [100_000, 300_000];
  const results = [];
  for (const docs of sizes) results.push(await growthBench(docs));
  const mean = (values: number[]): number => values.reduce((a, b) => a + b, 0) / values.length;
  printTable(
    'A growing collection on disk (opportunity-shaped documents, three compound indexes, insertMany of 1000): CPU µs per inserted document by tenth of the run, then a restart on the data directory and a first read (a scan)',
    [
      'docs',
      'insert 1st tenth',
      'insert last tenth',
      'insert all',
      'load s',
      'load CPU µs/doc',
      'heap B/doc',
      'first read s',
      'first read CPU µs/doc',
      'heap B/doc after it',
      'data dir MB',
    ],
    results.map((r) => [
      r.docs,
      r.windows[0].cpuMicrosPerDoc,
      r.windows.at(-1)!.cpuMicrosPerDoc,
      mean(r.windows.map((w) => w.cpuMicrosPerDoc)),
      r.loadSeconds,
      r.loadCpuMicrosPerDoc,
      r.heapBytesPerDoc,
      r.firstReadSeconds,
      r.firstReadCpuMicrosPerDoc,
      r.readHeapBytesPerDoc,
      r.dataDirBytes / 1024 / 1024,
    ]),
  );
  return results;
}

async function placement(): Promise<unknown> {
  // Placements alternate over several rounds so a change in machine load hits both alike;
  // the table shows each one's median round.
  const runs: PlacementRow[] = [];
  const rounds = QUICK ? 1 : 3;
  const gatewayCosts = [0, 200];
  for (const gatewayMicros of gatewayCosts) {
    for (let round = 0; round < rounds; round++) {
      for (const where of ['in-process', 'worker thread'] as const) {
        runs.push(await placementBench(where, QUICK ? 1000 : 3000, 32, gatewayMicros));
      }
    }
  }
  const of = (where: string, micros: number): PlacementRow[] =>
    runs
      .filter((p) => p.placement === where && p.gatewayMicrosPerRequest === micros)
      .sort((a, b) => a.perSecond - b.perSecond);
  const summary = gatewayCosts.flatMap((micros) =>
    ['in-process', 'worker thread'].map((where) => of(where, micros)[Math.floor(rounds / 2)]),
  );
  printTable(
    `Mixed mongoose load (60% findOne, 20% find 20, 20% updateOne, all indexed; 32 in flight), median of ${rounds} alternating rounds: where should the server run?`,
    ['placement', 'gateway µs/req', 'requests/s', 'p50 µs', 'p99 µs', 'all rounds req/s'],
    summary.map((p) => [
      p.placement,
      p.gatewayMicrosPerRequest,
      p.perSecond,
      p.p50Micros,
      p.p99Micros,
      of(p.placement, p.gatewayMicrosPerRequest)
        .map((q) => formatNumber(q.perSecond))
        .join(' / '),
    ]),
  );
  return { summary, runs };
}

const RUNNERS: Record<Section, () => Promise<unknown>> = {
  ping,
  lookups,
  group,
  inserts,
  growth,
  placement,
};

async function main(): Promise<void> {
  const started = new Date();
  const loadStart = load();
  console.log(
    `embedded store benchmark: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})${QUICK ? ', quick' : ''}; load average ${loadStart}`,
  );
  const results: Record<string, unknown> = {};
  for (const section of SECTIONS) {
    if (!wanted(section)) continue;
    // A section that fails (a command the store lacks) is reported and the others still run.
    results[section] = await RUNNERS[section]().catch((err: Error) => {
      console.log(`\n${section}: FAILED: ${err.message}`);
      return { error: err.message };
    });
  }
  console.log(`\nload average (1, 5, 15 min) at start ${loadStart}, at end ${load()}`);
  if (QUICK || ONLY) return; // only a full run is saved
  const dir = join(__dirname, '../../../test/bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, 'store.json');
  const saved = {
    started: started.toISOString(),
    node: process.version,
    cpus: cpus().length,
    cpuModel: cpus()[0]?.model,
    loadAverage: { start: loadStart, end: load() },
    ...results,
  };
  writeFileSync(file, `${JSON.stringify(saved, null, 2)}\n`);
  console.log(`saved ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
