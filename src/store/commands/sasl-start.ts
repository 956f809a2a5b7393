import { StoreError } from '../errors';
import { describeType } from '../query/filter';
import { optionalObject } from './arguments';
import type { Command } from './command';
import { saslPayload, saslReply } from './sasl-payload';

/** `saslStart`: the client-first message of a SCRAM-SHA-256 exchange (see auth/connection-auth.ts). */
export const saslStartCommand: Command = {
  name: 'saslStart',
  allowedUnauthenticated: true,
  run(ctx) {
    const mechanism = ctx.body.mechanism;
    if (typeof mechanism !== 'string') {
      throw new StoreError(
        'TypeMismatch',
        `BSON field 'saslStart.mechanism' is the wrong type '${describeType(mechanism)}', expected type 'string'`,
      );
    }
    const options = optionalObject(ctx.body, 'options');
    return saslReply(
      ctx.connection.auth.saslStart({
        db: ctx.db,
        mechanism,
        payload: saslPayload(ctx.body.payload, 'saslStart'),
        skipEmptyExchange: options?.skipEmptyExchange === true,
      }),
    );
  },
};
