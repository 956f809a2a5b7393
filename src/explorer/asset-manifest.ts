import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the asset build leaves beside the hashed files, and what the page is assembled from. */
export interface AssetManifest {
  /** Hash of everything the bundle is built from; a different hash means the assets are stale. */
  inputsHash: string;
  /** File name of the bundled script, e.g. `explorer-3F2K1Q.js`. */
  script: string;
  /** File name of the bundled stylesheet. */
  stylesheet: string;
  /** File name of the page's icon (browsers ask for one; without it they log a 404). */
  icon: string;
  /** Every file the build wrote (script, stylesheet, fonts and images taken out of the CSS). */
  files: string[];
}

export const MANIFEST_FILE = 'manifest.json';

/** Reads the manifest of a built asset folder; null when there is none or it is unreadable. */
export function readAssetManifest(assetDir: string): AssetManifest | null {
  try {
    const parsed = JSON.parse(
      readFileSync(join(assetDir, MANIFEST_FILE), 'utf8'),
    ) as Partial<AssetManifest>;
    if (
      typeof parsed.inputsHash !== 'string' ||
      typeof parsed.script !== 'string' ||
      typeof parsed.stylesheet !== 'string' ||
      typeof parsed.icon !== 'string' ||
      !Array.isArray(parsed.files)
    ) {
      return null;
    }
    return parsed as AssetManifest;
  } catch {
    return null;
  }
}
