import type { DataAccess } from '../data/data-access';
import type { RequestData } from '../data/request-data';
import { forecastLoaders } from './forecast.loaders';
import { lazyLoaderClass } from './lazy-loaders';
import { memberLoaders } from './member.loaders';
import { pipelineLoaders } from './pipeline.loaders';

const RequestLoaders = lazyLoaderClass({
  ...memberLoaders,
  ...pipelineLoaders,
  ...forecastLoaders,
});

/** Every DataLoader of one request, by domain. Field resolvers use these, never a model. */
export type Loaders = InstanceType<typeof RequestLoaders>;

/** Called once per request (REST or GraphQL) when the context is built; each loader is made when first used. */
export function createLoaders(access: DataAccess, data: RequestData): Loaders {
  return new RequestLoaders(access, data);
}
