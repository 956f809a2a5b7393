import { AUTH_DB } from '../auth/scram-credential';
import type { Command } from './command';

/**
 * Who this connection is: nobody before authentication (or on a server without credentials), else
 * the store's one user, who may do everything (mongod's `root`).
 */
export const connectionStatusCommand: Command = {
  name: 'connectionStatus',
  allowedUnauthenticated: true,
  run(ctx) {
    const user = ctx.connection.auth.user;
    return {
      authInfo:
        user === null
          ? { authenticatedUsers: [], authenticatedUserRoles: [] }
          : {
              authenticatedUsers: [{ user, db: AUTH_DB }],
              authenticatedUserRoles: [{ role: 'root', db: AUTH_DB }],
            },
    };
  },
};
