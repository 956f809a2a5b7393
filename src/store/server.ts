import { EventEmitter } from 'node:events';
import { createServer, type Server, type Socket } from 'node:net';
import type { Document } from 'bson';
import { CursorRegistry } from './cursors';
import { RequestHandler } from './handler';
import { Catalog } from './storage/catalog';
import { FileJournal } from './storage/file-journal';
import type { Journal } from './storage/journal';
import { MemoryJournal } from './storage/memory-journal';
import { FrameReader } from './wire/frame-reader';

export interface EmbeddedMongoServerOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** TCP port; 0 (the default) picks a free ephemeral port. */
  port?: number;
  /** Data directory for the file journal; `null` (the default) keeps everything in memory. */
  dataDir?: string | null;
  /** A journal to use instead of the one `dataDir` implies (tests). */
  journal?: Journal;
}

export interface ServerEvents {
  /** Every command received: name as sent, database, whole body. */
  command: [name: string, db: string, body: Document];
}

/**
 * An embedded server speaking the MongoDB wire protocol: the official driver and mongoose
 * connect to `uri` exactly as to a standalone mongod.
 */
export class EmbeddedMongoServer extends EventEmitter<ServerEvents> {
  private readonly sockets = new Set<Socket>();
  private nextConnectionId = 1;
  private stopping: Promise<void> | null = null;

  private constructor(
    private readonly server: Server,
    private readonly catalog: Catalog,
    private readonly cursors: CursorRegistry,
    private readonly handler: RequestHandler,
    readonly host: string,
    readonly port: number,
  ) {
    super();
    // Test suites attach a command counter per test; many listeners are expected, not a leak.
    this.setMaxListeners(0);
    handler.on('command', (name, db, body) => this.emit('command', name, db, body));
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(options: EmbeddedMongoServerOptions = {}): Promise<EmbeddedMongoServer> {
    const host = options.host ?? '127.0.0.1';
    const journal = options.journal ?? (options.dataDir ? new FileJournal(options.dataDir) : new MemoryJournal());
    const catalog = await Catalog.open(journal);
    const cursors = new CursorRegistry();
    const handler = new RequestHandler(catalog, cursors);
    const server = createServer({ noDelay: true });
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(options.port ?? 0, host, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } catch (err) {
      cursors.close();
      await catalog.close();
      throw err;
    }
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
    return new EmbeddedMongoServer(server, catalog, cursors, handler, host, port);
  }

  /** `mongodb://<host>:<port>/` */
  get uri(): string {
    const host = this.host.includes(':') ? `[${this.host}]` : this.host;
    return `mongodb://${host}:${this.port}/`;
  }

  /** Open server cursors (the conformance suite checks none is left behind). */
  openCursorCount(): number {
    return this.cursors.openCount;
  }

  /** Stops listening, closes every connection and cursor, then the journal. Idempotent. */
  stop(): Promise<void> {
    this.stopping ??= (async () => {
      const closed = new Promise<void>((resolve) => this.server.close(() => resolve()));
      for (const socket of this.sockets) socket.destroy();
      await closed;
      this.cursors.close();
      await this.catalog.close();
    })();
    return this.stopping;
  }

  private accept(socket: Socket): void {
    if (this.stopping) {
      socket.destroy();
      return;
    }
    this.sockets.add(socket);
    socket.setNoDelay(true);
    const connection = { id: this.nextConnectionId++, remoteAddress: `${socket.remoteAddress}:${socket.remotePort}` };
    const reader = new FrameReader();
    // Requests of one connection run in order; replies go out in the same order.
    let queue: Promise<void> = Promise.resolve();
    socket.on('data', (chunk: Buffer) => {
      let frames: Buffer[];
      try {
        frames = reader.push(chunk);
      } catch {
        socket.destroy();
        return;
      }
      for (const frame of frames) {
        queue = queue.then(async () => {
          if (socket.destroyed) return;
          try {
            const reply = await this.handler.handleFrame(frame, connection);
            if (reply && !socket.destroyed) socket.write(reply);
          } catch {
            // A frame breaking the protocol: the stream can no longer be trusted.
            socket.destroy();
          }
        });
      }
    });
    socket.on('error', () => socket.destroy());
    socket.on('close', () => this.sockets.delete(socket));
  }
}
