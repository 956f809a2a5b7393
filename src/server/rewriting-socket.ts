import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import { DelMethodRewriter } from './del-method-rewriter';

/**
 * Internal: a Duplex standing in for a client socket in front of Node's HTTP server (which
 * accepts any Duplex as a connection). Incoming bytes pass through DelMethodRewriter; outgoing
 * bytes go to the socket unchanged. Address getters and socket options are forwarded so fastify
 * sees the real peer.
 */
export class RewritingSocket extends Duplex {
  private readonly rewriter = new DelMethodRewriter();

  constructor(private readonly socket: Socket) {
    super({ allowHalfOpen: true });
    socket.on('data', (chunk: Buffer) => {
      let more = true;
      for (const part of this.rewriter.push(chunk)) more = this.push(part) && more;
      if (!more) socket.pause();
    });
    socket.on('end', () => this.push(null));
    socket.on('timeout', () => this.emit('timeout'));
    socket.on('error', (error) => this.destroy(error));
    socket.on('close', () => this.destroy());
  }

  get remoteAddress(): string | undefined {
    return this.socket.remoteAddress;
  }
  get remotePort(): number | undefined {
    return this.socket.remotePort;
  }
  get remoteFamily(): string | undefined {
    return this.socket.remoteFamily;
  }
  get localAddress(): string | undefined {
    return this.socket.localAddress;
  }
  get localPort(): number | undefined {
    return this.socket.localPort;
  }
  get bytesWritten(): number {
    return this.socket.bytesWritten;
  }

  setTimeout(ms: number, callback?: () => void): this {
    this.socket.setTimeout(ms);
    if (callback) this.once('timeout', callback);
    return this;
  }
  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }
  setKeepAlive(enable?: boolean, initialDelay?: number): this {
    this.socket.setKeepAlive(enable, initialDelay);
    return this;
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    this.socket.write(chunk, encoding, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    this.socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    this.socket.destroy();
    callback(error);
  }
}
