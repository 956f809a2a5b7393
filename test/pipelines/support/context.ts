/** Internal to the pipeline tests: a request context as both transports build it, fresh loaders included. */
import type { Principal } from '../../../src/auth/principal';
import type { RequestContext } from '../../../src/context/request-context';
import { createLoaders } from '../../../src/loaders/create-loaders';
import { ADMIN } from './database';

export function requestContext(principal: Principal = ADMIN): RequestContext {
  return { requestId: 'test', principal, loaders: createLoaders() };
}
