import type { Command } from './command';
import { saslPayload, saslReply } from './sasl-payload';

/** `saslContinue`: the client-final message, then (without skipEmptyExchange) the empty round. */
export const saslContinueCommand: Command = {
  name: 'saslContinue',
  allowedUnauthenticated: true,
  run(ctx) {
    const payload = saslPayload(ctx.body.payload, 'saslContinue');
    return saslReply(ctx.connection.auth.saslContinue(ctx.body.conversationId, payload));
  },
};
