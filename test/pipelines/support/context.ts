/** Internal to the pipeline tests: a request context as both transports build it, fresh loaders included. */
import type { Principal } from '../../../src/auth/principal';
import type { RequestContext } from '../../../src/context/request-context';
import type { DataAccess } from '../../../src/data/data-access';
import { createLoaders } from '../../../src/loaders/create-loaders';
import { ADMIN, testAccess } from './database';

/** A fresh request's context: its view of the data as of now, fresh loaders. */
export function requestContext(
  principal: Principal = ADMIN,
  access: DataAccess = testAccess(),
): RequestContext {
  // Embedded: the counters as of now; uri mode: read when the request first needs them.
  const data = access.request();
  return { requestId: 'test', principal, access, data, loaders: createLoaders(access, data) };
}
