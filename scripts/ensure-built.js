#!/usr/bin/env node
// Builds dist/ only when a source is newer than the last successful build, so `npm start` (and
// `npm run db`, `import`, `seed`, the benches) start at once when nothing changed. Plain
// JavaScript: it runs before there is anything compiled. Also the `prepare` step of `npm install`.
'use strict';
const { execFileSync } = require('node:child_process');
const { existsSync, readdirSync, statSync, utimesSync, writeFileSync } = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const stamp = path.join(root, 'dist', '.build-stamp');
/** What the build reads: the sources it compiles and bundles, and the settings it compiles with. */
const inputs = ['src', 'test', 'tsconfig.json', 'package-lock.json'];

// A folder's own time counts too: it changes when an entry is added, removed or renamed, which
// a moved or deleted source (whose file keeps its old time, or is gone) would not show otherwise.
function newestChange(file) {
  const stats = statSync(file);
  if (!stats.isDirectory()) return stats.mtimeMs;
  let newest = stats.mtimeMs;
  for (const entry of readdirSync(file))
    newest = Math.max(newest, newestChange(path.join(file, entry)));
  return newest;
}

function builtAt() {
  return existsSync(stamp) ? statSync(stamp).mtimeMs : -1;
}

const newest = Math.max(
  ...inputs
    .map((name) => path.join(root, name))
    .filter(existsSync)
    .map(newestChange),
);
if (newest > builtAt()) {
  process.stderr.write('Building (sources changed since the last build)...\n');
  const started = Date.now();
  // npm's own binary: the one running this script's npm, not whichever is first on PATH.
  const npm = process.env.npm_execpath;
  const command = npm
    ? [process.execPath, [npm, 'run', '--silent', 'build']]
    : ['npm', ['run', '--silent', 'build']];
  try {
    // The build's output goes to stderr, like this script's: the standard output of the script
    // that follows is its own (`ADMIN=$(npm run -s admin-token)` captures a token, nothing else).
    execFileSync(command[0], command[1], { cwd: root, stdio: ['inherit', 2, 'inherit'] });
  } catch {
    process.stderr.write('The build failed (its errors are above); nothing was started.\n');
    process.exit(1);
  }
  writeFileSync(stamp, `${new Date(started).toISOString()}\n`);
  // Dated when the build started: a source saved during the build still counts as newer.
  utimesSync(stamp, started / 1000, started / 1000);
  process.stderr.write(`Built in ${((Date.now() - started) / 1000).toFixed(1)} s.\n`);
}
