/**
 * Internal test helper: the CACHE_MAX_AGE_MS of test gateways and data-access layers unless a test
 * sets its own. Once per window, an instance checks the content of the mutable collections in the
 * background (src/data/version-clock.ts), and the first check after writes starts new versions of
 * what was written. Tests that count round trips or kept answers cannot predict when a 5 s window
 * turns, so theirs lasts longer than any test file; the checks are tested with short windows of
 * their own (test/data/version-clock.test.ts, test/data/two-instances-one-process.test.ts).
 */
export const TEST_CACHE_MAX_AGE_MS = 3_600_000;
