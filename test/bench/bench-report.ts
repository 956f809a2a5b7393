/** Internal (benchmark): the gateway bench's table. */
import type { CaseResult } from './bench-rounds';

const fixed = (n: number, digits: number): string => n.toFixed(digits);

export function printResults(results: CaseResult[]): void {
  const header = [
    'case',
    'req/s',
    '× bare',
    '× Mercurius',
    'p50 ms',
    'p99 ms',
    'non-2xx',
    'socket err',
    'writes/s',
    'db cmds/req',
  ];
  const rows = results.map((c) => [
    c.label,
    String(c.reqPerSec),
    fixed(c.ratioToBare, 2),
    fixed(c.ratioToMercurius, 2),
    fixed(c.p50Ms, 2),
    fixed(c.p99Ms, 2),
    String(c.non2xx),
    String(c.socketErrors),
    c.writes
      ? `${fixed(c.writes.perSecond, 1)}${c.writes.failed ? ` (${c.writes.failed} failed)` : ''}`
      : '-',
    c.roundTripsPerRequest === null ? '-' : fixed(c.roundTripsPerRequest, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((row) => row[i]!.length)));
  const line = (cells: string[]): string =>
    cells
      .map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!)))
      .join('  ');
  console.log(`\n${line(header)}\n${widths.map((w) => '-'.repeat(w)).join('  ')}`);
  for (const row of rows) console.log(line(row));
  for (const c of results)
    if (c.writes?.firstFailure)
      console.log(`${c.label}: first failed write: ${c.writes.firstFailure}`);
}
