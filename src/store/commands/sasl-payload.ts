import { Binary } from 'bson';
import { StoreError } from '../errors';
import { describeType } from '../query/filter';

/** The `payload` of saslStart/saslContinue: BSON binary as drivers send it, or a string (mongosh's legacy form). */
export function saslPayload(value: unknown, command: string): Buffer {
  if (value instanceof Binary)
    return Buffer.from(value.buffer.buffer, value.buffer.byteOffset, value.position);
  if (value instanceof Uint8Array) return Buffer.from(value);
  if (typeof value === 'string') return Buffer.from(value, 'utf8');
  if (value === undefined)
    throw new StoreError(
      'Location40414',
      `BSON field '${command}.payload' is missing but a required field`,
    );
  throw new StoreError(
    'TypeMismatch',
    `BSON field '${command}.payload' is the wrong type '${describeType(value)}', expected types '[binData, string]'`,
  );
}

/** A SASL reply as mongod shapes it: the payload as generic binary. */
export function saslReply(reply: { conversationId: number; done: boolean; payload: Buffer }): {
  conversationId: number;
  done: boolean;
  payload: Binary;
} {
  return {
    conversationId: reply.conversationId,
    done: reply.done,
    payload: new Binary(reply.payload),
  };
}
