/**
 * Internal (benchmark): preloaded (`node --require`) into the processes scale.bench.ts measures,
 * it writes the process's peak resident set size in bytes to SCALE_PEAK_RSS_FILE when it exits
 * (the kernel keeps the peak; polling from outside would miss short spikes).
 */
import { writeFileSync } from 'node:fs';

const file = process.env.SCALE_PEAK_RSS_FILE;
if (file) {
  process.on('exit', () => writeFileSync(file, String(process.resourceUsage().maxRSS * 1024)));
}
