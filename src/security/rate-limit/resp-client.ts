// Internal: the smallest Redis (RESP2) client the rate limiter needs; one connection, replies in order.
import net from 'node:net';

export type RespValue = string | number | null | RespValue[];

/** A reply Redis sent as an error (`-ERR ...`). */
export class RedisReplyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RedisReplyError';
  }
}

function encode(args: readonly string[]): Buffer {
  let out = `*${args.length}\r\n`;
  for (const arg of args) out += `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`;
  return Buffer.from(out);
}

/** Parses one reply at `offset`; null when the buffer does not hold all of it yet. */
function parse(
  buffer: Buffer,
  offset: number,
): { value: RespValue | RedisReplyError; next: number } | null {
  const lineEnd = buffer.indexOf('\r\n', offset);
  if (lineEnd < 0) return null;
  const type = String.fromCharCode(buffer[offset]);
  const line = buffer.toString('utf8', offset + 1, lineEnd);
  const after = lineEnd + 2;
  switch (type) {
    case '+':
      return { value: line, next: after };
    case '-':
      return { value: new RedisReplyError(line), next: after };
    case ':':
      return { value: Number(line), next: after };
    case '$': {
      const length = Number(line);
      if (length < 0) return { value: null, next: after };
      if (buffer.length < after + length + 2) return null;
      return { value: buffer.toString('utf8', after, after + length), next: after + length + 2 };
    }
    case '*': {
      const length = Number(line);
      if (length < 0) return { value: null, next: after };
      const items: RespValue[] = [];
      let next = after;
      for (let i = 0; i < length; i += 1) {
        const item = parse(buffer, next);
        if (!item) return null;
        if (item.value instanceof RedisReplyError) return { value: item.value, next: item.next };
        items.push(item.value);
        next = item.next;
      }
      return { value: items, next };
    }
    default:
      throw new Error(`Unexpected RESP reply type ${JSON.stringify(type)}`);
  }
}

/**
 * Sends commands to Redis at `redis://host:port[/db]`. Connects lazily and again after a failure;
 * a command sent while the connection is down fails (the caller decides what that means).
 */
export class RespClient {
  private socket: net.Socket | null = null;
  private buffer: Buffer = Buffer.alloc(0);
  private readonly pending: Array<{
    resolve: (value: RespValue) => void;
    reject: (error: Error) => void;
  }> = [];
  private readonly host: string;
  private readonly port: number;

  constructor(
    url: string,
    private readonly timeoutMs = 1000,
  ) {
    const parsed = new URL(url);
    if (parsed.protocol !== 'redis:') throw new Error(`Expected a redis:// URL, got "${url}"`);
    this.host = parsed.hostname || '127.0.0.1';
    this.port = Number(parsed.port || 6379);
  }

  private connect(): net.Socket {
    if (this.socket) return this.socket;
    const socket = net.connect({ host: this.host, port: this.port });
    socket.setNoDelay(true);
    socket.setTimeout(this.timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
      let offset = 0;
      for (let reply = parse(this.buffer, offset); reply; reply = parse(this.buffer, offset)) {
        offset = reply.next;
        const waiter = this.pending.shift();
        if (reply.value instanceof RedisReplyError) waiter?.reject(reply.value);
        else waiter?.resolve(reply.value);
      }
      this.buffer = this.buffer.subarray(offset);
    });
    const fail = (error: Error): void => {
      if (this.socket !== socket) return;
      this.socket = null;
      this.buffer = Buffer.alloc(0);
      socket.destroy();
      for (const waiter of this.pending.splice(0)) waiter.reject(error);
    };
    socket.on('timeout', () => {
      // Idle is fine; a timeout with replies outstanding means Redis stopped answering.
      if (this.pending.length > 0)
        fail(
          new Error(
            `Redis at ${this.host}:${this.port} did not answer within ${this.timeoutMs} ms`,
          ),
        );
    });
    socket.on('error', fail);
    socket.on('close', () =>
      fail(new Error(`Redis connection to ${this.host}:${this.port} closed`)),
    );
    this.socket = socket;
    return socket;
  }

  command(...args: string[]): Promise<RespValue> {
    return new Promise((resolve, reject) => {
      this.pending.push({ resolve, reject });
      this.connect().write(encode(args));
    });
  }

  async close(): Promise<void> {
    const socket = this.socket;
    this.socket = null;
    if (!socket) return;
    await new Promise<void>((resolve) => {
      socket.once('close', () => resolve());
      socket.end();
    });
  }
}
