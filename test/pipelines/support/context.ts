/** Internal to the pipeline tests: a request context as both transports build it, fresh loaders included. */
import { randomBytes } from 'node:crypto';
import type { Principal } from '../../../src/auth/principal';
import { TokenSigner } from '../../../src/auth/jwt';
import { loadConfig } from '../../../src/config';
import type { AuthenticatedContext } from '../../../src/context/request-context';
import type { DataAccess } from '../../../src/data/data-access';
import { createLoaders } from '../../../src/loaders/create-loaders';
import { CrmSync } from '../../../src/sync/crm-sync';
import { ADMIN, testAccess } from './database';

/** A fresh request's context: its view of the data read when first needed, fresh loaders. */
export function requestContext(
  principal: Principal = ADMIN,
  access: DataAccess = testAccess(),
): AuthenticatedContext {
  const data = access.request();
  const config = loadConfig({});
  return {
    requestId: 'test',
    principal,
    access,
    data,
    loaders: createLoaders(access, data),
    tokenSigner: new TokenSigner({
      secret: randomBytes(32),
      issuer: config.jwtIssuer,
      audience: config.jwtAudience,
    }),
    // No HUBSPOT_TOKEN: the sync is not configured.
    sync: { sync: new CrmSync({ config, queue: access.imports, role: 'test' }), scheduler: null },
    // No events runtime: the outbox is written, nothing reads it.
    events: { allowPrivateUrls: false, nudge: () => undefined },
  };
}
