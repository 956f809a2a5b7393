/**
 * Benchmark: the gateway's read paths under wrk, against a bare node:http ceiling and a
 * Mercurius + graphql-jit reference; on the embedded store, on MONGODB_URI to a separate store
 * process, and as two instances on that store. Prints figures and writes them to
 * test/bench/results/gateway.json; asserts nothing beyond "every request of a list answers 200
 * before load" and "the references answer what the gateway answers". Run with `npm run bench`
 * (flags after `--`); docs/performance.md describes the method.
 *
 * Every server runs in its own process, alone under load; wrk (one thread, 10 connections; two
 * threads of 5 for two instances) runs as a child of this process, which only schedules runs
 * and, in the "+ writes" cases, writes settings.
 */
import type { ChildProcess } from 'node:child_process';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { isDeepStrictEqual, parseArgs } from 'node:util';
import {
  checkAll,
  dashboardList,
  dashboardRequest,
  hotList,
  mixList,
  send,
  CALLERS,
  METRIC_FILTERS,
} from './bench-requests';
import { printResults } from './bench-report';
import {
  measureRounds,
  median,
  type BenchCase,
  type CaseKind,
  type CaseResult,
} from './bench-rounds';
import { ask, start, stop } from './child-processes';
import type { GatewayReady } from './gateway-server';
import { DASHBOARD_SOURCE_QUERY, toDashboardArrays } from './reference/dashboard-data';
import type { ReferenceReady } from './reference/reference-messages';
import { startSeededStore, type StoreProcess } from './store-process';
import { ensureWrk, writeRequestList, type WrkRequest } from './wrk/run-wrk';

const MODES = ['embedded', 'uri', 'uri-2'] as const;
const KINDS = ['hot', 'mix', 'dashboard'] as const;
type Mode = (typeof MODES)[number];
type GatewayKind = (typeof KINDS)[number];

const USAGE = `Usage: npm run bench -- [--quick] [--seconds S] [--warmup S] [--rounds N] [--modes ${MODES.join(',')}] [--cases ${KINDS.join(',')}] [--writes N] [--deals N]
  --quick   a smoke run: 1 round of 2 s, 1 s warm-up
  --writes  settings writes per second in the "+ writes" cases; 0: no such cases
  --no-scrape  leave out the case that scrapes /metrics every second during the embedded dashboard`;

interface Options {
  seconds: number;
  warmup: number;
  rounds: number;
  modes: Mode[];
  cases: GatewayKind[];
  writesPerSecond: number;
  deals: number;
  /** The embedded dashboard case again with /metrics scraped every second (its CPU overhead). */
  scrapeMetrics: boolean;
}

function options(): Options {
  const { values } = parseArgs({
    options: {
      quick: { type: 'boolean' },
      seconds: { type: 'string' },
      warmup: { type: 'string' },
      rounds: { type: 'string' },
      modes: { type: 'string', default: MODES.join(',') },
      cases: { type: 'string', default: KINDS.join(',') },
      writes: { type: 'string', default: '10' },
      deals: { type: 'string', default: '3000' },
      'no-scrape': { type: 'boolean' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    console.log(USAGE);
    process.exit(0);
  }
  const number = (name: string, raw: string, min = 1): number => {
    const value = Number(raw);
    if (!Number.isFinite(value) || value < min)
      throw new Error(`--${name} must be a number of at least ${min}, got "${raw}"\n${USAGE}`);
    return value;
  };
  const list = <T extends string>(name: string, raw: string, allowed: readonly T[]): T[] => {
    const items = raw.split(',').map((s) => s.trim());
    for (const item of items)
      if (!allowed.includes(item as T))
        throw new Error(`--${name} takes ${allowed.join(', ')}; got "${item}"\n${USAGE}`);
    return items as T[];
  };
  return {
    seconds: Math.round(number('seconds', values.seconds ?? (values.quick ? '2' : '4'))),
    warmup: Math.round(number('warmup', values.warmup ?? (values.quick ? '1' : '2'))),
    rounds: Math.round(number('rounds', values.rounds ?? (values.quick ? '1' : '4'))),
    modes: list('modes', values.modes, MODES),
    cases: list('cases', values.cases, KINDS),
    writesPerSecond: number('writes', values.writes, 0),
    deals: Math.round(number('deals', values.deals)),
    scrapeMetrics: values['no-scrape'] !== true,
  };
}

async function fetchJson(base: string, request: WrkRequest): Promise<any> {
  const { status, text } = await send(base, request);
  if (status !== 200)
    throw new Error(`${request.method} ${request.path} answered ${status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** One mode's gateway(s): where wrk sends, and the request lists, checked. */
interface GatewayTarget {
  mode: Mode;
  base: string;
  /** Two instances: each wrk thread loads one. */
  addresses?: string[];
  counter?: ChildProcess;
  /** ADMIN_TOKEN: the settings writes. */
  adminToken: string;
  /** The admin member's JWT: the one caller of the hot case. */
  adminMemberToken: string;
  files: Record<GatewayKind, string>;
}

const KIND_LABELS: Record<CaseKind, string> = {
  bare: 'bare node:http, GET /pipelines bytes',
  mercurius: 'Mercurius + graphql-jit, dashboard',
  hot: 'GET /pipelines, one caller',
  mix: 'metrics mix',
  dashboard: 'dashboard, 12 callers',
};

async function prepareTarget(
  mode: Mode,
  ready: GatewayReady[],
  listDir: string,
  counter?: ChildProcess,
): Promise<GatewayTarget> {
  const bases = ready.map((r) => `http://127.0.0.1:${r.port}`);
  const tokens = ready[0]!.memberTokens;
  if (tokens.length < CALLERS)
    throw new Error(
      `${mode}: the demo company has ${tokens.length} members, the bench needs ${CALLERS}`,
    );
  const source = await fetchJson(bases[0]!, {
    ...dashboardRequest(tokens[0]!.token),
    body: JSON.stringify({ query: DASHBOARD_SOURCE_QUERY }),
  });
  const pipelineIds = toDashboardArrays(source.data).pipelines.map((p) => p.id);
  const lists: Record<GatewayKind, WrkRequest[]> = {
    hot: hotList(tokens),
    mix: mixList(tokens, pipelineIds),
    dashboard: dashboardList(tokens),
  };
  const files = {} as Record<GatewayKind, string>;
  for (const kind of KINDS) {
    // Every instance must answer every request: the tokens of one are valid on the other.
    for (const base of bases) await checkAll(base, `${mode} ${kind}`, lists[kind]);
    files[kind] = path.join(listDir, `${mode}-${kind}.txt`);
    writeRequestList(files[kind], lists[kind]);
  }
  console.log(
    `   ${mode}: ${pipelineIds.length} pipelines; the mix is ${lists.mix.length} requests (× ${CALLERS} callers × ${METRIC_FILTERS.length} filters), all answering 200`,
  );
  return {
    mode,
    base: bases[0]!,
    addresses: bases.length > 1 ? bases.map((b) => b.slice('http://'.length)) : undefined,
    counter,
    adminToken: ready[0]!.adminToken,
    adminMemberToken: tokens[0]!.token,
    files,
  };
}

function gatewayCases(target: GatewayTarget, opts: Options): BenchCase[] {
  const cases: BenchCase[] = [];
  const writeVariants = opts.writesPerSecond > 0 ? [false, true] : [false];
  for (const kind of opts.cases) {
    for (const writes of writeVariants) {
      cases.push({
        id: `${target.mode}/${kind}${writes ? '+writes' : ''}`,
        mode: target.mode,
        kind,
        label: `${target.mode} ${KIND_LABELS[kind]}${writes ? ' + writes' : ''}`,
        load: {
          requestFile: target.files[kind],
          url: target.base,
          addresses: target.addresses,
          threads: target.addresses ? target.addresses.length : 1,
          connections: 10,
        },
        counter: target.counter,
        writer: writes
          ? { baseUrl: target.base, adminToken: target.adminToken, perSecond: opts.writesPerSecond }
          : undefined,
      });
    }
    // The dashboard again while Prometheus scrapes /metrics every second: what scraping costs.
    if (kind === 'dashboard' && target.counter && opts.scrapeMetrics)
      cases.push({
        id: `${target.mode}/dashboard+metrics`,
        mode: target.mode,
        kind,
        label: `${target.mode} ${KIND_LABELS[kind]} + /metrics 1/s`,
        load: {
          requestFile: target.files[kind],
          url: target.base,
          threads: 1,
          connections: 10,
        },
        counter: target.counter,
        scraper: { baseUrl: target.base, token: target.adminToken, everyMs: 1000 },
      });
  }
  return cases;
}

/**
 * What scraping /metrics every second adds to the dashboard's CPU per request: the per-round
 * ratio of the gateway's CPU time per answer with and without the scraper, median over rounds.
 */
function scrapeOverhead(results: CaseResult[]): ScrapeOverhead | null {
  const plain = results.find((r) => r.id === 'embedded/dashboard');
  const scraped = results.find((r) => r.id === 'embedded/dashboard+metrics');
  if (!plain?.cpuUsPerRequest || !scraped?.cpuUsPerRequest) return null;
  const ratios = scraped.cpuUsPerRequest.map((cpu, i) => cpu / plain.cpuUsPerRequest![i]! - 1);
  return {
    cpuUsPerRequest: Math.round(median(plain.cpuUsPerRequest) * 10) / 10,
    cpuUsPerRequestScraped: Math.round(median(scraped.cpuUsPerRequest) * 10) / 10,
    overheadPercent: Math.round(median(ratios) * 1000) / 10,
    roundsPercent: ratios.map((r) => Math.round(r * 1000) / 10),
    scrapes: scraped.scrapes ?? 0,
  };
}

/** Scrapes timed alone, for the cost of one. */
const SCRAPES = 50;

/** The gateway's CPU time per `GET /metrics`, scraped SCRAPES times in a row with no other load. */
async function cpuPerScrape(target: GatewayTarget): Promise<number> {
  const before = await ask(target.counter!, { type: 'reset' });
  for (let i = 0; i < SCRAPES; i += 1) {
    const answer = await fetch(`${target.base}/metrics`, {
      headers: { authorization: `Bearer ${target.adminToken}` },
    });
    if (answer.status !== 200) throw new Error(`GET /metrics answered ${answer.status}`);
    await answer.text();
  }
  const after = await ask(target.counter!, { type: 'count' });
  return Math.round((after.cpuMicros - before.cpuMicros) / SCRAPES);
}

interface ScrapeOverhead {
  /** The gateway's CPU per scrape, measured alone; and the overhead it implies at one a second. */
  cpuUsPerScrape?: number;
  derivedOverheadPercent?: number;
  cpuUsPerRequest: number;
  cpuUsPerRequestScraped: number;
  /** Median of the per-round ratios, in %. */
  overheadPercent: number;
  roundsPercent: number[];
  scrapes: number;
}

async function main(): Promise<void> {
  const opts = options();
  ensureWrk();
  const wrkVersion = execFileSync('sh', ['-c', 'wrk --version 2>&1 || true'], { encoding: 'utf8' })
    .split('\n')[0]!
    .trim();
  console.log(
    `Gateway benchmark: ${wrkVersion}; 10 connections (one wrk thread; two of 5 for two instances), ${opts.warmup} s warm-up per case, then ${opts.rounds} round(s) of ${opts.seconds} s per case (cases interleaved; medians, ratios per round); ${opts.writesPerSecond} settings writes/s in the "+ writes" cases.`,
  );
  const listDir = mkdtempSync(path.join(tmpdir(), 'bench-wrk-'));
  const children: ChildProcess[] = [];
  let store: StoreProcess | null = null;
  const secrets = {
    BENCH_JWT_SECRET: randomBytes(32).toString('base64url'),
    BENCH_ADMIN_TOKEN: randomBytes(24).toString('base64url'),
  };
  const seedSeconds: Record<string, number> = {};
  try {
    const targets: GatewayTarget[] = [];
    if (opts.modes.includes('embedded')) {
      console.log(`\n== embedded: ${opts.deals} deals, seeded in the gateway process`);
      const gateway = await start<GatewayReady>('gateway-server.js', {
        args: ['--deals', String(opts.deals)],
        env: secrets,
      });
      children.push(gateway.child);
      seedSeconds.embedded = gateway.ready.seedSeconds;
      targets.push(await prepareTarget('embedded', [gateway.ready], listDir, gateway.child));
    }
    const uriModes = opts.modes.filter((m): m is 'uri' | 'uri-2' => m !== 'embedded');
    if (uriModes.length > 0) {
      console.log(
        `\n== MONGODB_URI: a store process (npm run db), seeded with ${opts.deals} deals by npm run seed's program`,
      );
      store = await startSeededStore(opts.deals);
      seedSeconds.uri = store.seedSeconds;
      const env = { ...secrets, BENCH_MONGODB_URI: store.uri };
      const first = await start<GatewayReady>('gateway-server.js', { env });
      children.push(first.child);
      if (uriModes.includes('uri'))
        targets.push(await prepareTarget('uri', [first.ready], listDir));
      if (uriModes.includes('uri-2')) {
        const second = await start<GatewayReady>('gateway-server.js', { env });
        children.push(second.child);
        targets.push(await prepareTarget('uri-2', [first.ready, second.ready], listDir));
      }
    }
    for (const [mode, seconds] of Object.entries(seedSeconds))
      console.log(`   ${mode}: seeded in ${seconds.toFixed(1)} s`);

    // The references serve the first gateway's own answers, as the admin member sees them.
    const source = targets[0]!;
    const adminHeaders = { authorization: `Bearer ${source.adminMemberToken}` };
    const pipelinesAnswer = await fetchJson(source.base, {
      method: 'GET',
      path: '/pipelines',
      headers: adminHeaders,
    });
    const dashboardSource = await fetchJson(source.base, {
      method: 'POST',
      path: '/graphql',
      headers: { ...adminHeaders, 'content-type': 'application/json' },
      body: JSON.stringify({ query: DASHBOARD_SOURCE_QUERY }),
    });
    const dashboardAnswer = await fetchJson(source.base, dashboardRequest(source.adminMemberToken));

    const bare = await start<ReferenceReady>('reference/bare-server.js', {
      first: { type: 'serve', body: pipelinesAnswer },
    });
    children.push(bare.child);
    const bareBase = `http://127.0.0.1:${bare.ready.port}`;
    if (
      !isDeepStrictEqual(
        await fetchJson(bareBase, { method: 'GET', path: '/pipelines', headers: {} }),
        pipelinesAnswer,
      )
    ) {
      throw new Error('the bare server does not answer what GET /pipelines answers');
    }
    const mercurius = await start<ReferenceReady>('reference/mercurius-server.js', {
      first: { type: 'serve', body: toDashboardArrays(dashboardSource.data) },
    });
    children.push(mercurius.child);
    const mercuriusBase = `http://127.0.0.1:${mercurius.ready.port}`;
    if (
      !isDeepStrictEqual(await fetchJson(mercuriusBase, dashboardRequest(null)), dashboardAnswer)
    ) {
      throw new Error('Mercurius does not answer the dashboard query as the gateway does');
    }
    const bareFile = path.join(listDir, 'bare.txt');
    writeRequestList(bareFile, [{ method: 'GET', path: '/pipelines', headers: {} }]);
    const mercuriusFile = path.join(listDir, 'mercurius.txt');
    writeRequestList(mercuriusFile, [dashboardRequest(null)]);

    for (const target of targets) {
      const { status, text } = await send(target.base, {
        method: 'POST',
        path: '/settings/currencies',
        headers: {
          authorization: `Bearer ${target.adminToken}`,
          'content-type': 'application/json',
        },
        body: JSON.stringify({ currency: 'EUR' }),
      });
      if (status !== 200)
        throw new Error(
          `${target.mode}: the settings write answered ${status}: ${text.slice(0, 300)}`,
        );
    }

    const reference = (
      kind: 'bare' | 'mercurius',
      url: string,
      requestFile: string,
    ): BenchCase => ({
      id: kind,
      mode: 'reference',
      kind,
      label: KIND_LABELS[kind],
      load: { requestFile, url, threads: 1, connections: 10 },
    });
    const cases = [
      reference('bare', bareBase, bareFile),
      reference('mercurius', mercuriusBase, mercuriusFile),
      ...targets.flatMap((t) => gatewayCases(t, opts)),
    ];
    console.log(`\n== ${cases.length} cases`);
    const results = await measureRounds(cases, opts);
    printResults(results);
    const scraping = scrapeOverhead(results);
    if (scraping) {
      const target = targets.find((t) => t.mode === 'embedded')!;
      scraping.cpuUsPerScrape = await cpuPerScrape(target);
      const plain = results.find((r) => r.id === 'embedded/dashboard')!;
      // One scrape a second over the dashboard's answers in that second, against its CPU per answer.
      scraping.derivedOverheadPercent =
        Math.round(
          (scraping.cpuUsPerScrape / plain.reqPerSec / scraping.cpuUsPerRequest) * 100_000,
        ) / 1000;
      console.log(
        `\n/metrics scraped every second: the dashboard's gateway CPU per request ${scraping.cpuUsPerRequest} µs without, ${scraping.cpuUsPerRequestScraped} µs with (${scraping.scrapes} scrapes): ${scraping.overheadPercent >= 0 ? '+' : ''}${scraping.overheadPercent} % (median of the per-round ratios; rounds ${scraping.roundsPercent.map((r) => `${r >= 0 ? '+' : ''}${r} %`).join(', ')})`,
      );
      console.log(
        `/metrics alone: ${scraping.cpuUsPerScrape} µs of gateway CPU per scrape (${SCRAPES} scrapes, nothing else running): one a second adds ${scraping.derivedOverheadPercent} % to the dashboard's CPU per request at ${plain.reqPerSec} req/s`,
      );
    }

    const file = path.resolve(__dirname, '../../../test/bench/results/gateway.json');
    mkdirSync(path.dirname(file), { recursive: true });
    const machine = {
      node: process.version,
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? 'unknown',
      wrk: wrkVersion,
    };
    writeFileSync(
      file,
      `${JSON.stringify({ at: new Date().toISOString(), ...machine, options: opts, seedSeconds, results, scraping }, null, 2)}\n`,
    );
    console.log(`\nwritten to ${path.relative(process.cwd(), file)}`);
  } finally {
    for (const child of children.reverse()) await stop(child);
    await store?.stop();
    rmSync(listDir, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exitCode = 1;
});
