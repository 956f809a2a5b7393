import { randomBytes } from 'node:crypto';
import { StoreError } from '../errors';
import type { Authenticator } from './authenticator';
import { SCRAM_SHA_256 } from './scram-credential';
import { authenticationFailed, parseClientFirst, ScramExchange } from './scram-exchange';

/** A saslStart/saslContinue answer: `payload` goes back as BSON binary. */
export interface SaslReply {
  conversationId: number;
  done: boolean;
  payload: Buffer;
}

export interface SaslStartRequest {
  /** `$db` of the command: where the user is looked up. */
  db: string;
  mechanism: string;
  payload: Buffer;
  /** `options.skipEmptyExchange`: finish with the server-final message, without the empty round. */
  skipEmptyExchange: boolean;
}

type Conversation =
  | {
      step: 'proof';
      id: number;
      exchange: ScramExchange;
      user: string;
      genuine: boolean;
      skipEmptyExchange: boolean;
    }
  | { step: 'empty'; id: number; user: string };

/** One connection's authentication: who it is (if anyone) and the SASL conversation under way. */
export class ConnectionAuth {
  private authenticated: string | null = null;
  private conversation: Conversation | null = null;
  private nextConversationId = 1;

  constructor(private readonly authenticator: Authenticator) {}

  /** The user this connection authenticated as, or null. */
  get user(): string | null {
    return this.authenticated;
  }

  /** True when the server asks for authentication at all. */
  get required(): boolean {
    return this.authenticator.required;
  }

  /** Whether a command may run on this connection now. */
  mayRun(command: { allowedUnauthenticated?: boolean }): boolean {
    return (
      !this.authenticator.required ||
      this.authenticated !== null ||
      command.allowedUnauthenticated === true
    );
  }

  /** Starts a conversation: answers the client-first message with the server-first message. */
  saslStart(request: SaslStartRequest): SaslReply {
    this.conversation = null;
    if (request.mechanism !== SCRAM_SHA_256) {
      throw new StoreError(
        'MechanismUnavailable',
        `Received authentication for mechanism ${request.mechanism} which is not enabled`,
      );
    }
    const first = parseClientFirst(request.payload);
    const { credential, genuine } = this.authenticator.lookup(request.db, first.user);
    const exchange = new ScramExchange(first, credential, randomBytes(24).toString('base64'));
    const id = this.nextConversationId++;
    this.conversation = {
      step: 'proof',
      id,
      exchange,
      user: first.user,
      genuine,
      skipEmptyExchange: request.skipEmptyExchange,
    };
    return { conversationId: id, done: false, payload: Buffer.from(exchange.serverFirst) };
  }

  /** Continues the conversation `conversationId`; any failure ends it. */
  saslContinue(conversationId: unknown, payload: Buffer): SaslReply {
    const conversation = this.conversation;
    this.conversation = null;
    if (!conversation || conversation.id !== conversationId) throw authenticationFailed();
    if (conversation.step === 'empty') {
      if (payload.length !== 0) throw authenticationFailed();
      this.authenticated = conversation.user;
      return { conversationId: conversation.id, done: true, payload: Buffer.alloc(0) };
    }
    const serverFinal = conversation.exchange.verify(payload);
    // A decoy cannot verify (its keys are random), but the user must never be one.
    if (!conversation.genuine) throw authenticationFailed();
    if (conversation.skipEmptyExchange) {
      this.authenticated = conversation.user;
      return { conversationId: conversation.id, done: true, payload: Buffer.from(serverFinal) };
    }
    this.conversation = { step: 'empty', id: conversation.id, user: conversation.user };
    return { conversationId: conversation.id, done: false, payload: Buffer.from(serverFinal) };
  }
}
