import type { AddressInfo, Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { DelMethodRewriter } from './del-method-rewriter';

/**
 * Internal: a client connection as the HTTP server sees it once the client has sent the contract's
 * `DEL` method (see del-method-handover.ts). What the client sends reaches the server through
 * DelMethodRewriter, so every `DEL` request on it reads as DELETE; what the server writes goes to
 * the socket as it is. It answers the parts of the net.Socket interface that Node's HTTP server
 * and fastify use (addresses, time-outs), so the connection is served like any other.
 */
export class RewrittenConnection extends Duplex {
  private readonly rewriter = new DelMethodRewriter();

  /** `received`: the bytes already read from `socket` that the server has yet to see. */
  constructor(
    private readonly socket: Socket,
    received: Buffer,
  ) {
    super({ allowHalfOpen: true });
    this.receive(received);
    socket.on('data', (chunk: Buffer) => this.receive(chunk));
    socket.on('end', () => {
      // What the rewriter holds back (an unfinished head) goes on as it is: the parser judges it.
      const held = this.rewriter.rest();
      if (held.length > 0) this.push(held);
      this.push(null);
    });
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

  address(): AddressInfo | object {
    return this.socket.address();
  }

  /** As net.Socket's: the socket's idle time-out, reported as this connection's 'timeout'. */
  setTimeout(timeoutMs: number, callback?: () => void): this {
    this.socket.setTimeout(timeoutMs);
    if (callback) this.once('timeout', callback);
    return this;
  }

  setNoDelay(noDelay?: boolean): this {
    this.socket.setNoDelay(noDelay);
    return this;
  }

  setKeepAlive(enable?: boolean, initialDelayMs?: number): this {
    this.socket.setKeepAlive(enable, initialDelayMs);
    return this;
  }

  /** As net.Socket's: ends the connection, then closes it once everything written has gone. */
  destroySoon(): void {
    if (this.writable) this.end();
    if (this.writableFinished) this.destroy();
    else this.once('finish', () => this.destroy());
  }

  override _read(): void {
    this.socket.resume();
  }

  override _write(chunk: Buffer, encoding: BufferEncoding, callback: () => void): void {
    if (this.socket.write(chunk, encoding)) callback();
    else this.socket.once('drain', callback);
  }

  override _final(callback: () => void): void {
    this.socket.end(callback);
  }

  override _destroy(error: Error | null, callback: (error: Error | null) => void): void {
    this.socket.destroy();
    callback(error);
  }

  private receive(chunk: Buffer): void {
    let more = true;
    for (const part of this.rewriter.push(chunk)) more = this.push(part) && more;
    // Read no further until the server has taken what it was given.
    if (!more) this.socket.pause();
  }
}
