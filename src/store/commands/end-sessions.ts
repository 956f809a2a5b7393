import type { Command } from './command';

/**
 * Sessions hold no server state here (no transactions), so ending them is a no-op. Allowed
 * unauthenticated: drivers end their sessions when closing, whatever became of the login.
 */
export const endSessionsCommand: Command = {
  name: 'endSessions',
  allowedUnauthenticated: true,
  run: () => ({}),
};
export const killAllSessionsCommand: Command = { name: 'killAllSessions', run: () => ({}) };
export const refreshSessionsCommand: Command = { name: 'refreshSessions', run: () => ({}) };
