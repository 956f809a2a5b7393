/** Internal to the pipeline tests: a request context as both transports build it, fresh loaders included. */
import type { Principal } from '../../../src/auth/principal';
import type { RequestContext } from '../../../src/context/request-context';
import type { DataAccess } from '../../../src/data/data-access';
import { createLoaders } from '../../../src/loaders/create-loaders';
import { ADMIN, testAccess } from './database';

/** A fresh request's context: its view of the data as of now, fresh loaders. */
export function requestContext(principal: Principal = ADMIN, access: DataAccess = testAccess()): RequestContext {
  const data = access.requestNow();
  if (data === undefined) throw new Error('the test database is the embedded one: its view is known at once');
  return { requestId: 'test', principal, access, data, loaders: createLoaders(access, data) };
}
