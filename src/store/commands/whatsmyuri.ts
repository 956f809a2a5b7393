import type { Command } from './command';

export const whatsMyUriCommand: Command = {
  name: 'whatsmyuri',
  run: (ctx) => ({ you: ctx.connection.remoteAddress }),
};
