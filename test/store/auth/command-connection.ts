// Internal to the store's auth tests: one raw wire-protocol connection that sends commands in
// order, and a SCRAM-SHA-256 client written from RFC 5802, so a test controls every step that
// the driver would hide (which connection, which options, which payload).
import { createHash, createHmac, pbkdf2Sync, randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';
import { Binary, deserialize, serialize, type Document } from 'bson';

export class CommandConnection {
  private buffered = Buffer.alloc(0);
  private waiting: ((frame: Buffer) => void) | null = null;
  private nextId = 1;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (chunk: Buffer) => {
      this.buffered = Buffer.concat([this.buffered, chunk]);
      if (
        this.buffered.length >= 4 &&
        this.buffered.length >= this.buffered.readInt32LE(0) &&
        this.waiting
      ) {
        const length = this.buffered.readInt32LE(0);
        const frame = this.buffered.subarray(0, length);
        this.buffered = this.buffered.subarray(length);
        const waiting = this.waiting;
        this.waiting = null;
        waiting(frame);
      }
    });
  }

  /** Connects to a TCP port on 127.0.0.1 or to a Unix socket path. */
  static open(target: number | string): Promise<CommandConnection> {
    return new Promise((resolve, reject) => {
      const socket = typeof target === 'number' ? connect(target, '127.0.0.1') : connect(target);
      socket.once('connect', () => resolve(new CommandConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one OP_MSG command and resolves with the reply document. */
  command(db: string, body: Document): Promise<Document> {
    const payload = Buffer.concat([
      Buffer.alloc(4),
      Buffer.from([0]),
      serialize({ ...body, $db: db }),
    ]);
    const header = Buffer.alloc(16);
    header.writeInt32LE(16 + payload.length, 0);
    header.writeInt32LE(this.nextId++, 4);
    header.writeInt32LE(2013, 12);
    return new Promise((resolve, reject) => {
      this.waiting = (frame) => resolve(deserialize(frame.subarray(21), { promoteBuffers: true }));
      this.socket.once('error', reject);
      this.socket.write(Buffer.concat([header, payload]));
    });
  }

  close(): void {
    this.socket.destroy();
  }
}

const hmac = (key: Buffer, text: string): Buffer => createHmac('sha256', key).update(text).digest();

/** The client side of SCRAM-SHA-256, one message at a time. */
export class ScramClient {
  readonly nonce = randomBytes(18).toString('base64');
  readonly firstBare: string;
  serverSignature: Buffer | null = null;

  constructor(
    readonly user: string,
    private readonly password: string,
  ) {
    this.firstBare = `n=${user.replace(/=/g, '=3D').replace(/,/g, '=2C')},r=${this.nonce}`;
  }

  get first(): Binary {
    return new Binary(Buffer.from(`n,,${this.firstBare}`));
  }

  /** The client-final message answering `serverFirst`. */
  final(serverFirst: Buffer): Binary {
    const text = serverFirst.toString();
    const fields = Object.fromEntries(text.split(',').map((part) => [part[0], part.slice(2)]));
    const salted = pbkdf2Sync(
      this.password,
      Buffer.from(fields.s, 'base64'),
      Number(fields.i),
      32,
      'sha256',
    );
    const clientKey = hmac(salted, 'Client Key');
    const storedKey = createHash('sha256').update(clientKey).digest();
    const withoutProof = `c=biws,r=${fields.r}`;
    const authMessage = `${this.firstBare},${text},${withoutProof}`;
    const signature = hmac(storedKey, authMessage);
    const proof = Buffer.from(clientKey.map((byte, i) => byte ^ signature[i]));
    this.serverSignature = hmac(hmac(salted, 'Server Key'), authMessage);
    return new Binary(Buffer.from(`${withoutProof},p=${proof.toString('base64')}`));
  }
}
