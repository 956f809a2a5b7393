/** Loaders of the pipelines half of the graph (snapshots, definitions, stages, pipelines, metrics). */
export function createPipelineLoaders() {
  return {};
}
