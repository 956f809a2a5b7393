import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire/op-codes';
import type { Command } from './command';

/**
 * The handshake. Reports a writable standalone: no setName, so drivers pick the "Single"
 * topology and refuse nothing up front; transactions are then refused by the server (code 20).
 */
export const helloCommand: Command = {
  name: 'hello',
  aliases: ['isMaster', 'ismaster'],
  run(ctx) {
    const legacy = !('hello' in ctx.body);
    return {
      helloOk: true,
      ...(legacy ? { ismaster: true } : { isWritablePrimary: true }),
      maxBsonObjectSize: MAX_BSON_OBJECT_SIZE,
      maxMessageSizeBytes: MAX_MESSAGE_SIZE,
      maxWriteBatchSize: 100_000,
      localTime: new Date(),
      logicalSessionTimeoutMinutes: 30,
      connectionId: ctx.connection.id,
      minWireVersion: 0,
      maxWireVersion: 21,
      readOnly: false,
    };
  },
};
