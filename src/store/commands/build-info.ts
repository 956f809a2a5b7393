import type { Command } from './command';

/** The version the store presents itself as: the mongod whose behaviour it follows. */
export const SERVER_VERSION = '7.0.0';

export const buildInfoCommand: Command = {
  name: 'buildInfo',
  aliases: ['buildinfo'],
  allowedUnauthenticated: true,
  run: () => ({
    version: SERVER_VERSION,
    gitVersion: 'embedded',
    versionArray: [...SERVER_VERSION.split('.').map(Number), 0],
    bits: 64,
    debug: false,
    maxBsonObjectSize: 16 * 1024 * 1024,
    storageEngines: ['embedded'],
    modules: [],
    javascriptEngine: 'none',
  }),
};
