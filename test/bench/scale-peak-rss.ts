/**
 * Internal (benchmark): preloaded (`node --require`) into the processes scale.bench.ts measures,
 * it writes the process's peak resident set size in bytes and its CPU time in seconds (user and
 * system) to SCALE_PEAK_RSS_FILE when it exits (the kernel keeps the peak; polling from outside
 * would miss short spikes).
 */
import { writeFileSync } from 'node:fs';

const file = process.env.SCALE_PEAK_RSS_FILE;
if (file) {
  process.on('exit', () => {
    const usage = process.resourceUsage();
    writeFileSync(
      file,
      `${usage.maxRSS * 1024} ${(usage.userCPUTime + usage.systemCPUTime) / 1e6}`,
    );
  });
}
