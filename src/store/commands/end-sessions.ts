import type { Command } from './command';

/** Sessions hold no server state here (no transactions), so ending them is a no-op. */
export const endSessionsCommand: Command = { name: 'endSessions', run: () => ({}) };
export const killAllSessionsCommand: Command = { name: 'killAllSessions', run: () => ({}) };
export const refreshSessionsCommand: Command = { name: 'refreshSessions', run: () => ({}) };
