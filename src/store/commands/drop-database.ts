import type { Command } from './command';

export const dropDatabaseCommand: Command = {
  name: 'dropDatabase',
  async run(ctx) {
    if (ctx.catalog.collections(ctx.db).length)
      await ctx.catalog.commit([{ op: 'dropDatabase', db: ctx.db }]);
    return { dropped: ctx.db };
  },
};
