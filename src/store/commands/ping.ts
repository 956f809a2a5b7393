import type { Command } from './command';

export const pingCommand: Command = { name: 'ping', allowedUnauthenticated: true, run: () => ({}) };
