// `npm run bench:store`: the embedded store's figures, each beside an in-process reference.
// A program that prints (and saves test/bench/results/store.json), not a test.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { formatNumber, printTable } from './bench-timer';
import { insertBench } from './insert-bench';
import { groupBench, lookupBench } from './lookup-bench';
import { placementBench, type PlacementRow } from './placement-bench';

const QUICK = process.argv.includes('--quick');

async function main(): Promise<void> {
  const started = new Date();
  console.log(`embedded store benchmark: node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'})${QUICK ? ', quick' : ''}`);

  const lookups = await lookupBench([1_000, QUICK ? 10_000 : 100_000], QUICK ? 1000 : 4000);
  printTable(
    'Lookups through the driver (in memory), beside a Map lookup',
    ['operation', 'docs', 'store ops/s', 'mean µs', 'reference', 'ref ops/s', 'store/ref'],
    lookups.map((r) => [r.what, r.docs, r.store.perSecond, r.store.meanMicros, r.referenceName, r.reference.perSecond, r.store.perSecond / r.reference.perSecond]),
  );
  const flat = ['find by _id', 'find by indexed field'].map((what) => {
    const [small, large] = lookups.filter((r) => r.what === what);
    return { what, ratio: large.store.perSecond / small.store.perSecond };
  });
  for (const f of flat) console.log(`${f.what}: rate at ${lookups.at(-1)!.docs} docs = ${formatNumber(f.ratio * 100)}% of the rate at 1,000 docs`);

  // A section that fails (a command the store lacks) is reported and the others still run.
  const group = await groupBench(10_000, QUICK ? 10 : 40).catch((err: Error) => ({ error: err.message }));
  if ('error' in group) console.log(`\n$group over 10,000 documents: FAILED: ${group.error}`);
  else {
    printTable(
      '$group over 10,000 documents, beside an array reduce',
      ['operation', 'docs', 'store runs/s', 'mean ms', 'ref runs/s', 'store/ref'],
      [['$group by cat, $sum', group.docs, group.store.perSecond, group.store.meanMicros / 1000, group.reference.perSecond, group.store.perSecond / group.reference.perSecond]],
    );
  }

  const inserts = await insertBench(QUICK ? 500 : 3000, 32);
  printTable(
    'insertOne through the driver, in memory vs on disk (acknowledged after fsync)',
    ['mode', 'writers', 'inserts/s', 'mean µs', 'fsyncs/write', 'store/Map.set'],
    inserts.rows.map((r) => [r.mode, r.concurrency, r.rate.perSecond, r.rate.meanMicros, r.fsyncsPerWrite ?? '-', r.rate.perSecond / inserts.reference.perSecond]),
  );
  console.log(`reference Map.set: ${formatNumber(inserts.reference.perSecond)} ops/s`);

  const placements: PlacementRow[] = [];
  for (const gatewayMicros of [0, 200]) {
    for (const placement of ['in-process', 'worker thread'] as const) {
      placements.push(await placementBench(placement, QUICK ? 1000 : 5000, 32, gatewayMicros));
    }
  }
  printTable(
    'Mixed mongoose load (60% findOne, 20% find 20, 20% updateOne; 32 in flight): where should the server run?',
    ['placement', 'gateway µs/req', 'requests/s', 'p50 µs', 'p99 µs'],
    placements.map((p) => [p.placement, p.gatewayMicrosPerRequest, p.perSecond, p.p50Micros, p.p99Micros]),
  );

  const results = { started: started.toISOString(), node: process.version, cpus: cpus().length, quick: QUICK, lookups, flat, group, inserts, placements };
  const dir = join(__dirname, '../../../test/bench/results');
  mkdirSync(dir, { recursive: true });
  const file = join(dir, QUICK ? 'store-quick.json' : 'store.json');
  writeFileSync(file, `${JSON.stringify(results, null, 2)}\n`);
  console.log(`\nsaved ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
