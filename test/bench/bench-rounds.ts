/**
 * Internal (benchmark): measures cases in interleaved rounds with wrk and reduces the rounds to
 * figures. Each figure is the median of its rounds (p99: the worst round); a ratio is the median
 * of the ratios within each round, where the two cases ran seconds apart, so the drift of a
 * shared machine's speed over minutes cancels out.
 */
import type { ChildProcess } from 'node:child_process';
import { ask } from './child-processes';
import { startSettingsWriter, type WriteTally } from './settings-writer';
import { runWrk, type WrkLoad, type WrkRun } from './wrk/run-wrk';

export type CaseKind = 'bare' | 'mercurius' | 'hot' | 'mix' | 'dashboard';

export interface BenchCase {
  id: string;
  /** Where the gateway's data lives: none for the references. */
  mode: 'reference' | 'embedded' | 'uri' | 'uri-2';
  kind: CaseKind;
  label: string;
  load: Omit<WrkLoad, 'seconds'>;
  /** The gateway whose database commands are counted (embedded only). */
  counter?: ChildProcess;
  /** Settings written 10×/s through this gateway during every run of the case. */
  writer?: { baseUrl: string; adminToken: string; perSecond: number };
  /** `GET /metrics` scraped through this gateway every `everyMs` during every run, as Prometheus would. */
  scraper?: { baseUrl: string; token: string; everyMs: number };
}

export interface CaseResult {
  id: string;
  mode: BenchCase['mode'];
  kind: CaseKind;
  label: string;
  /** 2xx answers over all rounds. */
  requests: number;
  /** 2xx answers per second: the median round. */
  reqPerSec: number;
  /** 2xx answers per second of each round, in order. */
  rounds: number[];
  ratioToBare: number;
  ratioToMercurius: number;
  /** Median of the rounds. */
  p50Ms: number;
  /** The worst round's. */
  p99Ms: number;
  /** Answers with a status of 400 or more, over all rounds. */
  non2xx: number;
  /** wrk's connect, read, write errors and time-outs, over all rounds. */
  socketErrors: number;
  /** Database commands received ÷ 2xx answers (writes included); null where not counted. */
  roundTripsPerRequest: number | null;
  /** The "+ writes" cases: the writes sent during the measured runs, summed over the rounds. */
  writes?: WriteTally & { perSecond: number };
  /** The gateway's CPU time per 2xx answer, in µs, each round; null where not counted. */
  cpuUsPerRequest: number[] | null;
  /** The scraped cases: scrapes answered 200 over all rounds. */
  scrapes?: number;
}

interface Run {
  wrk: WrkRun;
  commands: number;
  writes: WriteTally | null;
  /** The gateway's CPU time during the run (µs); 0 where not counted. */
  cpuMicros: number;
  scrapes: number;
}

const answered = (run: WrkRun): number => run.requests - run.non2xx;

export function median(values: number[]): number {
  const sorted = [...values].sort((x, y) => x - y);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Scrapes `GET /metrics` every `everyMs` until stopped; resolves with the scrapes answered 200. */
function startScraper(scraper: NonNullable<BenchCase['scraper']>): { stop(): Promise<number> } {
  let ok = 0;
  let failure: string | null = null;
  const scrape = async (): Promise<void> => {
    const answer = await fetch(`${scraper.baseUrl}/metrics`, {
      headers: { authorization: `Bearer ${scraper.token}` },
    });
    await answer.text();
    if (answer.status === 200) ok += 1;
    else failure ??= `GET /metrics answered ${answer.status}`;
  };
  const pending: Promise<void>[] = [];
  const timer = setInterval(() => pending.push(scrape()), scraper.everyMs);
  return {
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      if (failure !== null) throw new Error(failure);
      return ok;
    },
  };
}

async function measureOnce(c: BenchCase, seconds: number): Promise<Run> {
  const before = c.counter ? await ask(c.counter, { type: 'reset' }) : null;
  const writer = c.writer
    ? startSettingsWriter(c.writer.baseUrl, c.writer.adminToken, c.writer.perSecond)
    : null;
  const scraper = c.scraper ? startScraper(c.scraper) : null;
  const wrk = await runWrk({ ...c.load, seconds });
  const writes = writer ? await writer.stop() : null;
  const scrapes = scraper ? await scraper.stop() : 0;
  const after = c.counter ? await ask(c.counter, { type: 'count' }) : null;
  return {
    wrk,
    commands: after?.commands ?? 0,
    writes,
    cpuMicros: before && after ? after.cpuMicros - before.cpuMicros : 0,
    scrapes,
  };
}

/**
 * Warms every case up (no writes), then measures them `rounds` times in turn. The first case
 * must be the bare server and some case the Mercurius reference: the ratios are taken to them.
 */
export async function measureRounds(
  cases: BenchCase[],
  opts: { seconds: number; warmup: number; rounds: number },
): Promise<CaseResult[]> {
  for (const c of cases) {
    process.stdout.write(`  warm-up ${c.label}\n`);
    await runWrk({ ...c.load, seconds: opts.warmup });
  }
  const runs = new Map<string, Run[]>(cases.map((c) => [c.id, []]));
  for (let round = 1; round <= opts.rounds; round += 1) {
    for (const c of cases) {
      const run = await measureOnce(c, opts.seconds);
      runs.get(c.id)!.push(run);
      const faults =
        run.wrk.non2xx + run.wrk.socketErrors > 0
          ? `  NON-2XX ${run.wrk.non2xx} SOCKET ERRORS ${run.wrk.socketErrors}`
          : '';
      const writes = run.writes ? `  writes ${run.writes.ok}/${run.writes.sent}` : '';
      console.log(
        `  round ${round}  ${c.label.padEnd(40)} ${(answered(run.wrk) / run.wrk.seconds).toFixed(0).padStart(7)} req/s  p50 ${run.wrk.p50Ms.toFixed(2)} ms  p99 ${run.wrk.p99Ms.toFixed(2)} ms${writes}${faults}`,
      );
    }
  }
  const rateOf = (id: string): number[] =>
    runs.get(id)!.map((run) => answered(run.wrk) / run.wrk.seconds);
  const bare = rateOf(cases[0]!.id);
  const mercurius = rateOf(cases.find((c) => c.kind === 'mercurius')!.id);
  const ratio = (rates: number[], reference: number[]): number =>
    Math.round(median(rates.map((rate, i) => rate / reference[i]!)) * 1000) / 1000;
  return cases.map((c) => {
    const list = runs.get(c.id)!;
    const rates = rateOf(c.id);
    const ok = list.reduce((sum, run) => sum + answered(run.wrk), 0);
    const result: CaseResult = {
      id: c.id,
      mode: c.mode,
      kind: c.kind,
      label: c.label,
      requests: ok,
      reqPerSec: Math.round(median(rates)),
      rounds: rates.map(Math.round),
      ratioToBare: ratio(rates, bare),
      ratioToMercurius: ratio(rates, mercurius),
      p50Ms: median(list.map((run) => run.wrk.p50Ms)),
      p99Ms: Math.max(...list.map((run) => run.wrk.p99Ms)),
      non2xx: list.reduce((sum, run) => sum + run.wrk.non2xx, 0),
      socketErrors: list.reduce((sum, run) => sum + run.wrk.socketErrors, 0),
      roundTripsPerRequest: c.counter
        ? Math.round((list.reduce((sum, run) => sum + run.commands, 0) / ok) * 1000) / 1000
        : null,
      cpuUsPerRequest: c.counter
        ? list.map((run) => Math.round((run.cpuMicros / answered(run.wrk)) * 10) / 10)
        : null,
      ...(c.scraper ? { scrapes: list.reduce((sum, run) => sum + run.scrapes, 0) } : {}),
    };
    if (c.writer) {
      const tallies = list.map((run) => run.writes!);
      const sum = (key: 'sent' | 'ok' | 'failed' | 'seconds'): number =>
        tallies.reduce((total, t) => total + t[key], 0);
      result.writes = {
        sent: sum('sent'),
        ok: sum('ok'),
        failed: sum('failed'),
        firstFailure: tallies.find((t) => t.firstFailure)?.firstFailure ?? null,
        seconds: Math.round(sum('seconds') * 10) / 10,
        perSecond: Math.round((sum('ok') / sum('seconds')) * 10) / 10,
      };
    }
    return result;
  });
}
