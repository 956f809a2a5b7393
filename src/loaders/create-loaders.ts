import { createMemberLoaders } from './member.loaders';
import { createPipelineLoaders } from './pipeline.loaders';

/** Every DataLoader of one request, by domain. Field resolvers use these, never a model. */
export type Loaders = ReturnType<typeof createMemberLoaders> & ReturnType<typeof createPipelineLoaders>;

/** Called once per request (REST or GraphQL) when the context is built. */
export function createLoaders(): Loaders {
  return { ...createMemberLoaders(), ...createPipelineLoaders() };
}
