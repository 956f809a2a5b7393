/**
 * Internal test helper, preloaded (`node -r`) into the store processes tests start
 * (test/helpers/store-process.ts): their stdin is a pipe from the test runner, which never writes
 * to it. When the runner dies without stopping the process (killed, or a crash between the global
 * set-up and tear-down), the pipe closes and the process sends itself SIGTERM, stopping as on
 * Ctrl-C, rather than outliving the run. With any other stdin (a terminal, /dev/null) it does
 * nothing.
 */
import { fstatSync } from 'node:fs';

if (fstatSync(0).isSocket() || fstatSync(0).isFIFO()) {
  process.stdin.on('end', () => process.kill(process.pid, 'SIGTERM'));
  process.stdin.resume();
  // Watching stdin must not keep the process alive by itself.
  (process.stdin as unknown as { unref?: () => void }).unref?.();
}
