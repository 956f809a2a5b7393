import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import { createMemberLoaders } from './member.loaders';
import { createPipelineLoaders } from './pipeline.loaders';

/** Every DataLoader of one request, by domain. Field resolvers use these, never a model. */
export type Loaders = ReturnType<typeof createMemberLoaders> & ReturnType<typeof createPipelineLoaders>;

/** Called once per request (REST or GraphQL) when the context is built. */
export function createLoaders(access: DataAccess, data: RequestData): Loaders {
  return { ...createMemberLoaders(access, data), ...createPipelineLoaders(access, data) };
}
