/** Timing helpers of the benchmarks: plain loops, wall-clock time, no statistics library. */

export interface Rate {
  ops: number;
  seconds: number;
  /** Operations per second. */
  perSecond: number;
  /** Mean microseconds per operation. */
  meanMicros: number;
  /**
   * Mean CPU microseconds of this process per operation (user + system, all its threads). Less
   * sensitive than wall time to other processes competing for the CPU.
   */
  cpuMicros: number;
}

const now = (): bigint => process.hrtime.bigint();

interface Start {
  wall: bigint;
  cpu: NodeJS.CpuUsage;
}

const start = (): Start => ({ wall: now(), cpu: process.cpuUsage() });

function rate(ops: number, started: Start): Rate {
  const seconds = Number(now() - started.wall) / 1e9;
  const cpu = process.cpuUsage(started.cpu);
  return {
    ops,
    seconds,
    perSecond: ops / seconds,
    meanMicros: (seconds * 1e6) / ops,
    cpuMicros: (cpu.user + cpu.system) / ops,
  };
}

/** The round with the median rate. */
export function median(rates: Rate[]): Rate {
  const sorted = [...rates].sort((a, b) => a.perSecond - b.perSecond);
  return sorted[Math.floor(sorted.length / 2)];
}

/** Runs `op(i)` `ops` times one after the other (after `warmup` untimed runs). */
export async function timeSequential(
  ops: number,
  op: (i: number) => Promise<unknown>,
  warmup = Math.min(200, ops),
): Promise<Rate> {
  for (let i = 0; i < warmup; i++) await op(i);
  const started = start();
  for (let i = 0; i < ops; i++) await op(i);
  return rate(ops, started);
}

/** Runs `op(i)` `ops` times with `concurrency` of them in flight at once. */
export async function timeConcurrent(
  ops: number,
  concurrency: number,
  op: (i: number) => Promise<unknown>,
): Promise<Rate & { latenciesMicros: number[] }> {
  let next = 0;
  const latencies: number[] = [];
  const started = start();
  const lane = async (): Promise<void> => {
    while (next < ops) {
      const i = next++;
      const t0 = now();
      await op(i);
      latencies.push(Number(now() - t0) / 1e3);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { ...rate(ops, started), latenciesMicros: latencies };
}

/** Runs a synchronous reference `op(i)` `ops` times; the sink keeps the work from being optimised away. */
export function timeSync(ops: number, op: (i: number) => unknown): Rate {
  let sink = 0;
  for (let i = 0; i < Math.min(ops, 10_000); i++) sink += op(i) === undefined ? 0 : 1;
  const started = start();
  for (let i = 0; i < ops; i++) sink += op(i) === undefined ? 0 : 1;
  const result = rate(ops, started);
  if (sink < 0) console.log(sink);
  return result;
}

export function percentile(values: number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** Spins the CPU for `micros` microseconds: stands for the gateway's own work per request. */
export function busyWork(micros: number): void {
  const until = now() + BigInt(Math.round(micros * 1000));
  while (now() < until) {
    // spin
  }
}

/** Prints rows as an aligned text table. */
export function printTable(
  title: string,
  header: string[],
  rows: Array<Array<string | number>>,
): void {
  const cells = [
    header,
    ...rows.map((row) => row.map((cell) => (typeof cell === 'number' ? formatNumber(cell) : cell))),
  ];
  const widths = header.map((_, c) => Math.max(...cells.map((row) => String(row[c]).length)));
  console.log(`\n${title}`);
  cells.forEach((row, r) => {
    console.log(
      row
        .map((cell, c) =>
          c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c]),
        )
        .join('  '),
    );
    if (r === 0) console.log(widths.map((w) => '-'.repeat(w)).join('  '));
  });
}

export function formatNumber(n: number): string {
  if (!Number.isFinite(n)) return String(n);
  if (Math.abs(n) >= 100) return Math.round(n).toLocaleString('en-US');
  if (Math.abs(n) >= 1) return n.toFixed(2);
  return n.toPrecision(3);
}
