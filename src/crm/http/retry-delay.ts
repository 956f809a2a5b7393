/** How long to wait before attempt `attempt + 1`: full-jitter exponential backoff. */
export function backoffDelay(
  attempt: number,
  baseDelayMs: number,
  maxDelayMs: number,
  random: () => number,
): number {
  const ceiling = Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  // Full jitter spreads the retries of several instances hitting the same limit at once.
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

/**
 * The wait a `Retry-After` header asks for, in milliseconds: seconds (HubSpot's form) or an HTTP
 * date; null when absent or unreadable, so the caller falls back to backoff.
 */
export function retryAfterDelay(header: string | null, now: number): number | null {
  if (header === null || header.trim() === '') return null;
  const value = header.trim();
  if (/^\d+(\.\d+)?$/.test(value)) return Math.round(Number(value) * 1000);
  const date = Date.parse(value);
  return Number.isNaN(date) ? null : Math.max(0, date - now);
}
