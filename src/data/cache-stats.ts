/**
 * How often a cache had what was asked for: counted on each lookup (two integers, no allocation),
 * read by the app's metrics when `/metrics` is scraped (src/telemetry/gateway-metrics.ts).
 */
export class CacheStats {
  hits = 0;

  misses = 0;

  hit(count = 1): void {
    this.hits += count;
  }

  miss(count = 1): void {
    this.misses += count;
  }
}
