import type { Document } from 'bson';
import { SCRAM_SHA_256 } from '../auth/scram-credential';
import { isPlainObject } from '../storage/document-paths';
import { MAX_BSON_OBJECT_SIZE, MAX_MESSAGE_SIZE } from '../wire/op-codes';
import type { Command, CommandContext } from './command';
import { saslStartCommand } from './sasl-start';

/**
 * The handshake. Reports a writable standalone: no setName, so drivers pick the "Single"
 * topology and refuse nothing up front; transactions are then refused by the server (code 20).
 * When the server asks for credentials it also answers the driver's `saslSupportedMechs` and
 * runs its `speculativeAuthenticate` (saslStart inside the hello, saving a round trip).
 */
export const helloCommand: Command = {
  name: 'hello',
  aliases: ['isMaster', 'ismaster'],
  allowedUnauthenticated: true,
  async run(ctx) {
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
      ...authFields(ctx),
      ...(await speculativeAuthenticate(ctx)),
    };
  },
};

/**
 * `saslSupportedMechs: "<db>.<user>"` is answered for any user name, so the answer does not tell
 * which users exist (mongod answers only for existing ones).
 */
function authFields(ctx: CommandContext): Document {
  if (!ctx.connection.auth.required || typeof ctx.body.saslSupportedMechs !== 'string') return {};
  return { saslSupportedMechs: [SCRAM_SHA_256] };
}

/** The saslStart reply for the hello's `speculativeAuthenticate`; nothing when it fails, as mongod does. */
async function speculativeAuthenticate(ctx: CommandContext): Promise<Document> {
  const request = ctx.body.speculativeAuthenticate;
  if (!isPlainObject(request) || !('saslStart' in request)) return {};
  const db = typeof request.db === 'string' ? request.db : ctx.db;
  try {
    const reply = await saslStartCommand.run({ ...ctx, db, body: request });
    return { speculativeAuthenticate: reply };
  } catch {
    return {};
  }
}
