import { buildExplorerAssets } from '../../src/explorer/build-assets';

/**
 * Runs once before any test worker starts. Every gateway a test starts serves the GraphiQL page,
 * which needs the built explorer assets; a fresh clone has none until `npm run build`. Building
 * them here (skipped when they are current) means no suite depends on which other suite ran first.
 */
export default async function globalSetup(): Promise<void> {
  await buildExplorerAssets();
}
