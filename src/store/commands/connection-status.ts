import type { Command } from './command';

/** No authentication: every connection is unauthenticated with no roles, as mongod without auth. */
export const connectionStatusCommand: Command = {
  name: 'connectionStatus',
  run: () => ({ authInfo: { authenticatedUsers: [], authenticatedUserRoles: [] } }),
};
