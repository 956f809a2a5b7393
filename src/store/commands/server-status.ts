import { SERVER_VERSION } from './build-info';
import type { Command } from './command';

const startedAt = Date.now();

/** A small serverStatus: what tooling reads (version, uptime, open cursors). */
export const serverStatusCommand: Command = {
  name: 'serverStatus',
  run(ctx) {
    return {
      host: 'embedded',
      version: SERVER_VERSION,
      process: 'mongod',
      pid: process.pid,
      uptime: Math.floor((Date.now() - startedAt) / 1000),
      localTime: new Date(),
      metrics: { cursor: { open: { total: ctx.cursors.openCount } } },
    };
  },
};
