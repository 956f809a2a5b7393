import { EventEmitter } from 'node:events';
import { rm } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { Document } from 'bson';
import { Authenticator } from './auth/authenticator';
import type { ScramCredential } from './auth/scram-credential';
import { CursorRegistry } from './cursors';
import { RequestHandler } from './handler';
import { listenSocket, listenTcp } from './listen';
import { placePrivateSocket, type PrivateSocketPlace } from './private-socket';
import { Catalog } from './storage/catalog';
import { FileJournal } from './storage/file-journal';
import type { Journal } from './storage/journal';
import { MemoryJournal } from './storage/memory-journal';
import { TtlMonitor } from './storage/ttl-monitor';
import { FrameReader } from './wire/frame-reader';

export interface EmbeddedMongoServerOptions {
  /** Interface to listen on. Default `127.0.0.1`. */
  host?: string;
  /** TCP port; 0 (the default) picks a free ephemeral port. */
  port?: number;
  /**
   * Listen on this Unix domain socket instead of TCP (`host` and `port` are then ignored). The
   * file is made 0600; a stale one left by a dead process is replaced. Its directory decides who
   * may connect.
   */
  socketPath?: string;
  /**
   * Listen on a Unix socket only this user can reach, instead of TCP: `mongod.sock` in `dataDir`,
   * or in a fresh private temp directory (in memory, or when that path is too long for a socket),
   * removed at stop. Default false.
   */
  privateSocket?: boolean;
  /** Data directory for the file journal; `null` (the default) keeps everything in memory. */
  dataDir?: string | null;
  /** A journal to use instead of the one `dataDir` implies (tests). */
  journal?: Journal;
  /**
   * The one user clients must authenticate as (SCRAM-SHA-256, `authSource=admin`) before any
   * command but the handshake. Default null: no authentication asked.
   */
  credential?: ScramCredential | null;
  /** Seconds between two passes of the TTL monitor (mongod's `ttlMonitorSleepSecs`). Default 60. */
  ttlMonitorSleepSecs?: number;
}

type Listening =
  | { kind: 'tcp'; host: string; port: number }
  /** `tempDir`: the private directory made for the socket, removed at stop. */
  | { kind: 'socket'; path: string; tempDir: string | null };

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
    private readonly authenticator: Authenticator,
    private readonly listening: Listening,
    private readonly ttlMonitor: TtlMonitor,
  ) {
    super();
    // Test suites attach a command counter per test; many listeners are expected, not a leak.
    this.setMaxListeners(0);
    handler.on('command', (name, db, body) => this.emit('command', name, db, body));
    server.on('connection', (socket) => this.accept(socket));
  }

  static async start(options: EmbeddedMongoServerOptions = {}): Promise<EmbeddedMongoServer> {
    const dataDir = options.dataDir ?? null;
    const journal = options.journal ?? (dataDir ? new FileJournal(dataDir) : new MemoryJournal());
    const catalog = await Catalog.open(journal);
    const cursors = new CursorRegistry();
    const server = createServer({ noDelay: true });
    let place: PrivateSocketPlace | null = null;
    let ttlMonitor: TtlMonitor | null = null;
    try {
      ttlMonitor = new TtlMonitor(catalog, options.ttlMonitorSleepSecs);
      const handler = new RequestHandler(catalog, cursors, ttlMonitor);
      // After the journal opened: the data directory is private by now, and locked by this process.
      place = options.privateSocket ? await placePrivateSocket(dataDir) : null;
      const socketPath = place?.path ?? options.socketPath ?? null;
      const authenticator = new Authenticator(options.credential ?? null);
      let listening: Listening;
      if (socketPath !== null) {
        await listenSocket(server, socketPath);
        listening = { kind: 'socket', path: socketPath, tempDir: place?.tempDir ?? null };
      } else {
        const host = options.host ?? '127.0.0.1';
        listening = { kind: 'tcp', host, port: await listenTcp(server, host, options.port ?? 0) };
      }
      return new EmbeddedMongoServer(
        server,
        catalog,
        cursors,
        handler,
        authenticator,
        listening,
        ttlMonitor,
      );
    } catch (err) {
      server.close();
      if (place?.tempDir) await rm(place.tempDir, { recursive: true, force: true });
      cursors.close();
      await ttlMonitor?.stop();
      await catalog.close();
      throw err;
    }
  }

  /**
   * `mongodb://<host>:<port>/`, or `mongodb://<percent-encoded socket path>/` on a Unix socket.
   * Without credentials: clients add their own (`mongodb://user:password@…/?authSource=admin`).
   */
  get uri(): string {
    if (this.listening.kind === 'socket')
      return `mongodb://${encodeURIComponent(this.listening.path)}/`;
    const { host, port } = this.listening;
    return `mongodb://${host.includes(':') ? `[${host}]` : host}:${port}/`;
  }

  /** The TCP interface; empty when listening on a Unix socket. */
  get host(): string {
    return this.listening.kind === 'tcp' ? this.listening.host : '';
  }

  /** The TCP port; 0 when listening on a Unix socket (no TCP port is open then). */
  get port(): number {
    return this.listening.kind === 'tcp' ? this.listening.port : 0;
  }

  /** The Unix socket listened on, or null on TCP. */
  get socketPath(): string | null {
    return this.listening.kind === 'socket' ? this.listening.path : null;
  }

  /** True when clients must authenticate. */
  get requiresAuth(): boolean {
    return this.authenticator.required;
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
      // Closing removed the socket file itself; the private directory made for it goes too.
      if (this.listening.kind === 'socket' && this.listening.tempDir) {
        await rm(this.listening.tempDir, { recursive: true, force: true });
      }
      this.cursors.close();
      await this.ttlMonitor.stop();
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
    const connection = {
      id: this.nextConnectionId++,
      // What mongod reports for a client on its Unix socket, which has no address.
      remoteAddress: socket.remoteAddress
        ? `${socket.remoteAddress}:${socket.remotePort}`
        : 'anonymous unix socket',
      auth: this.authenticator.forConnection(),
    };
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
