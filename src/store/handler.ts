import { EventEmitter } from 'node:events';
import type { Document } from 'bson';
import type { ConnectionAuth } from './auth/connection-auth';
import type { CommandContext } from './commands/command';
import { findCommandByName } from './commands/registry';
import { ServerParameters } from './commands/server-parameters';
import type { CursorRegistry } from './cursors';
import { errorReply, StoreError } from './errors';
import type { Catalog } from './storage/catalog';
import type { TtlMonitor } from './storage/ttl-monitor';
import { validateDbName } from './storage/namespace';
import { decodeRequest } from './wire/decode';
import { encodeMsgReply, encodeOpReply } from './wire/encode';
import { MSG_MORE_TO_COME } from './wire/op-codes';

export interface ConnectionInfo {
  id: number;
  remoteAddress: string;
  /** Who the connection authenticated as, and whether it must have. */
  auth: ConnectionAuth;
}

/** Events of the handler: `command` fires for every command received, before it runs. */
export interface HandlerEvents {
  command: [name: string, db: string, body: Document];
}

/**
 * Decodes a frame, dispatches its command through the registry, and encodes the reply.
 * Decoding happens completely before anything runs: a malformed frame throws WireError and
 * applies nothing. Any error inside a command becomes an error reply; none escapes.
 */
export class RequestHandler extends EventEmitter<HandlerEvents> {
  /** The id of the next reply message (the wire header's requestID). */
  private nextReplyId = 1;
  private readonly parameters: ServerParameters;

  /** `ttlMonitor`: the server's, so that setParameter can change its period. */
  constructor(
    private readonly catalog: Catalog,
    private readonly cursors: CursorRegistry,
    ttlMonitor?: TtlMonitor,
  ) {
    super();
    this.parameters = new ServerParameters(cursors, ttlMonitor);
  }

  /** Returns the reply frame, or null when the client asked for none (moreToCome). */
  async handleFrame(frame: Buffer, connection: ConnectionInfo): Promise<Buffer | null> {
    const request = decodeRequest(frame);
    if (request.kind === 'msg') {
      const db = request.body.$db;
      const reply =
        typeof db === 'string'
          ? await this.runCommand(db, request.body, connection)
          : new StoreError('Location40571', 'OP_MSG requests require a $db argument').toReply();
      if (request.flags & MSG_MORE_TO_COME) return null;
      return encodeMsgReply(this.nextReplyId++, request.requestId, reply);
    }
    // OP_QUERY: only commands ("<db>.$cmd"), as used by the legacy hello handshake.
    const dot = request.fullCollectionName.indexOf('.');
    const db = request.fullCollectionName.slice(0, dot);
    let reply: Document;
    if (dot <= 0 || request.fullCollectionName.slice(dot + 1) !== '$cmd') {
      reply = { $err: 'OP_QUERY is no longer supported except for commands', code: 5739101, ok: 0 };
    } else {
      const body = '$query' in request.query ? (request.query.$query as Document) : request.query;
      reply = await this.runCommand(db, body, connection);
    }
    return encodeOpReply(this.nextReplyId++, request.requestId, reply);
  }

  /** Runs one command document; always resolves to a reply (ok: 1 or an error reply). */
  async runCommand(db: string, body: Document, connection: ConnectionInfo): Promise<Document> {
    const name = Object.keys(body)[0];
    if (name === undefined)
      return errorReply(new StoreError('Location40414', 'no command name in an empty document'));
    try {
      this.emit('command', name, db, body);
      const command = findCommandByName(name);
      // Before anything else looks at the request: an unauthenticated client learns nothing more.
      if (command && !connection.auth.mayRun(command)) {
        throw new StoreError('Unauthorized', `Command ${command.name} requires authentication`);
      }
      // A standalone mongod refuses every transaction number (and so every transaction).
      if (body.txnNumber !== undefined) {
        throw new StoreError(
          'IllegalOperation',
          'Transaction numbers are only allowed on a replica set member or mongos',
        );
      }
      validateDbName(db);
      if (!command) throw new StoreError('CommandNotFound', `no such command: '${name}'`);
      const ctx: CommandContext = {
        db,
        body,
        catalog: this.catalog,
        cursors: this.cursors,
        parameters: this.parameters,
        connection,
      };
      const result = await command.run(ctx);
      return { ...result, ok: 1 };
    } catch (err) {
      return errorReply(err);
    }
  }
}
