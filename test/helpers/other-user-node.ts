// Internal test helper: a node binary that a process running as another user can execute.
import { realpathSync, statSync } from 'node:fs';
import path from 'node:path';

/** Whether users other than the owner may execute `file`: it and every directory above it let them through. */
function executableByOthers(file: string): boolean {
  try {
    let current = realpathSync(file);
    if ((statSync(current).mode & 0o001) === 0) return false;
    for (let dir = path.dirname(current); dir !== current; current = dir, dir = path.dirname(dir)) {
      if ((statSync(dir).mode & 0o001) === 0) return false;
    }
    return true;
  } catch {
    return false;
  }
}

/**
 * This process's node when another user may run it, else the system's: a node from npm's cache
 * (`npx -p node@22`) lives under root's private home directory, which `nobody` cannot enter.
 */
export function nodeForOtherUsers(): string {
  return (
    [process.execPath, '/usr/bin/node', '/usr/local/bin/node'].find(executableByOthers) ??
    process.execPath
  );
}
