import { join } from 'node:path';
import { projectRoot } from '../project-root';

/** Where the browser sources of the explorer live (always read from `src/`, also when running from `dist/`). */
export function explorerSourceDir(root: string = projectRoot()): string {
  return join(root, 'src', 'explorer', 'client');
}

/** Where the built, hashed explorer assets and their manifest are written and served from. */
export function explorerAssetDir(root: string = projectRoot()): string {
  return join(root, 'dist', 'graphiql');
}
