import type { Document } from 'bson';
import type { ConnectionAuth } from '../auth/connection-auth';
import type { CursorRegistry } from '../cursors';
import type { Catalog } from '../storage/catalog';
import type { ServerParameters } from './server-parameters';

/** What a command sees: the request and the server's shared state. */
export interface CommandContext {
  /** `$db` of the request. */
  db: string;
  /** The whole command document (document sequences already merged in). */
  body: Document;
  catalog: Catalog;
  cursors: CursorRegistry;
  parameters: ServerParameters;
  connection: { id: number; remoteAddress: string; auth: ConnectionAuth };
}

/**
 * One command. `run` validates first and computes the whole effect before committing, and
 * returns the reply body without `ok` (the handler adds `ok: 1`); errors are thrown as StoreError.
 */
export interface Command {
  /** The canonical name, e.g. "findAndModify"; the registry matches it case-insensitively. */
  name: string;
  aliases?: string[];
  /**
   * Runs on a connection that has not authenticated (handshake, authentication, liveness), as
   * mongod's `requiresAuth() == false`. Default false: refused with Unauthorized (13) when the
   * server asks for credentials.
   */
  allowedUnauthenticated?: boolean;
  run(ctx: CommandContext): Promise<Document> | Document;
}
