import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/**
 * The project root: the nearest folder above this file whose package.json is the gateway's. Found
 * by walking up so the same code works from `src/` (ts-jest) and from `dist/src/` (npm start).
 */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    const manifest = join(dir, 'package.json');
    if (
      existsSync(manifest) &&
      (JSON.parse(readFileSync(manifest, 'utf8')) as { name?: string }).name === 'pipeline-gateway'
    )
      return dir;
    const parent = dirname(dir);
    if (parent === dir)
      throw new Error(
        `Expected to find the pipeline-gateway package.json above ${from}, found none`,
      );
    dir = parent;
  }
}
