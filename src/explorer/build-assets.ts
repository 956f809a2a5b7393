import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { type AssetManifest, MANIFEST_FILE, readAssetManifest } from './asset-manifest';
import { extractDataUrls } from './extract-data-urls';
import { projectRoot } from '../project-root';
import { explorerAssetDir, explorerSourceDir } from './paths';

/** Packages whose version changes the bundle. */
const BUNDLED_PACKAGES = ['graphiql', '@graphiql/react', 'react', 'react-dom', 'esbuild'];

/** Browsers the bundle targets: current evergreen ones, so no polyfills are shipped. */
const TARGETS = ['chrome115', 'firefox115', 'safari16', 'edge115'];

export interface BuildResult {
  manifest: AssetManifest;
  /** False when the existing assets were already built from the same inputs. */
  built: boolean;
}

function packageVersion(root: string, name: string): string {
  const manifest = JSON.parse(
    readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8'),
  ) as { version: string };
  return `${name}@${manifest.version}`;
}

/** Hash of the explorer sources, the versions bundled, and this build's own settings. */
export function explorerInputsHash(root: string = projectRoot()): string {
  const hash = createHash('sha256');
  const sourceDir = explorerSourceDir(root);
  for (const file of readdirSync(sourceDir).sort())
    hash.update(file).update(readFileSync(join(sourceDir, file)));
  for (const name of BUNDLED_PACKAGES) hash.update(packageVersion(root, name));
  hash.update(JSON.stringify(TARGETS));
  return hash.digest('hex').slice(0, 32);
}

function contentName(stem: string, extension: string, contents: Buffer | string): string {
  return `${stem}-${createHash('sha256').update(contents).digest('hex').slice(0, 12)}${extension}`;
}

/**
 * Builds the GraphiQL explorer into `dist/graphiql/`: one minified script, one stylesheet whose
 * inlined fonts and icons become separate files, all with content hashes in their names (served
 * as immutable), and `manifest.json`. Skips the work when the manifest says the assets were built
 * from the same inputs, unless `force` is set. esbuild is a dev dependency and is loaded here only.
 */
export async function buildExplorerAssets(
  options: { root?: string; force?: boolean } = {},
): Promise<BuildResult> {
  const root = options.root ?? projectRoot();
  const outDir = explorerAssetDir(root);
  const inputsHash = explorerInputsHash(root);
  const existing = readAssetManifest(outDir);
  if (
    !options.force &&
    existing?.inputsHash === inputsHash &&
    existing.files.every((file) => readdirSafe(outDir).includes(file))
  ) {
    return { manifest: existing, built: false };
  }

  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    absWorkingDir: root,
    entryPoints: [join(explorerSourceDir(root), 'explorer.jsx')],
    bundle: true,
    minify: true,
    format: 'iife',
    platform: 'browser',
    target: TARGETS,
    jsx: 'automatic',
    define: { 'process.env.NODE_ENV': '"production"' },
    outdir: outDir,
    write: false,
    logLevel: 'silent',
    legalComments: 'eof',
  });
  const script = result.outputFiles.find((file) => extname(file.path) === '.js');
  const stylesheet = result.outputFiles.find((file) => extname(file.path) === '.css');
  if (!script || !stylesheet) {
    throw new Error(
      `Expected esbuild to emit one .js and one .css file, got ${result.outputFiles.map((file) => basename(file.path)).join(', ')}`,
    );
  }
  const extracted = extractDataUrls(stylesheet.text);
  const icon = readFileSync(join(explorerSourceDir(root), 'favicon.svg'));
  const iconName = contentName('favicon', '.svg', icon);
  const scriptName = contentName('explorer', '.js', Buffer.from(script.contents));
  const stylesheetName = contentName('explorer', '.css', extracted.css);

  // Written aside and swapped in, so a running gateway never sees a half-written folder.
  const staging = `${outDir}.tmp-${process.pid}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  writeFileSync(join(staging, scriptName), script.contents);
  writeFileSync(join(staging, stylesheetName), extracted.css);
  writeFileSync(join(staging, iconName), icon);
  for (const file of extracted.files) writeFileSync(join(staging, file.name), file.contents);
  const manifest: AssetManifest = {
    inputsHash,
    script: scriptName,
    stylesheet: stylesheetName,
    icon: iconName,
    files: [
      scriptName,
      stylesheetName,
      iconName,
      ...extracted.files.map((file) => file.name),
    ].sort(),
  };
  writeFileSync(join(staging, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
  // The old folder is moved aside rather than deleted first, so a gateway reading the manifest
  // meanwhile sees no folder only between two renames, not for the length of a recursive delete.
  const retired = `${outDir}.old-${process.pid}`;
  rmSync(retired, { recursive: true, force: true });
  try {
    renameSync(outDir, retired);
  } catch {
    // No previous build, or another build moved it first.
  }
  try {
    renameSync(staging, outDir);
  } catch (error) {
    // Another build (a parallel test worker) swapped its folder in first; same inputs, same files.
    rmSync(staging, { recursive: true, force: true });
    if (readAssetManifest(outDir)?.inputsHash !== inputsHash) throw error;
  } finally {
    rmSync(retired, { recursive: true, force: true });
  }
  return { manifest, built: true };
}

function readdirSafe(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

// `node dist/src/explorer/build-assets.js [--force]`: run by `npm run build` (postbuild).
if (require.main === module) {
  buildExplorerAssets({ force: process.argv.includes('--force') }).then(
    ({ manifest, built }) => {
      process.stdout.write(
        `GraphiQL explorer assets ${built ? 'built' : 'up to date'}: ${manifest.files.length} files in ${explorerAssetDir()}\n`,
      );
    },
    (error: unknown) => {
      process.stderr.write(
        `GraphiQL explorer asset build failed: ${error instanceof Error ? error.stack : String(error)}\n`,
      );
      process.exitCode = 1;
    },
  );
}
