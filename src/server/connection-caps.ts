import type http from 'node:http';
import net from 'node:net';
import type { Duplex } from 'node:stream';

export interface ConnectionCapLimits {
  /** MAX_CONNECTIONS: open connections at most; 0: no cap. */
  maxConnections: number;
  /** MAX_CONNECTIONS_PER_ADDRESS: open connections from one client address at most; 0: no cap. */
  maxConnectionsPerAddress: number;
}

/**
 * Internal: how many connections the server keeps open, in total and per client address, decided
 * as each one arrives, before the HTTP server reads it (http-edge.ts). A connection
 * over a cap is closed before a byte of it is read: no answer can be framed yet. When the total cap
 * is reached, idle kept-alive connections (no request being received, no answer owed) are closed
 * first, and the new connection is refused only when none was idle. So a client holding many
 * connections open with half-sent headers (a slowloris) is stopped at its own address's cap, and
 * clients from other addresses still get in.
 */
export class ConnectionCaps {
  private readonly open = new Set<net.Socket>();
  private readonly byAddress = new Map<string, number>();

  constructor(
    private readonly server: http.Server,
    private readonly limits: ConnectionCapLimits,
  ) {}

  /**
   * Whether the HTTP server may serve `connection`; if not, it has been closed. A connection the
   * server gives itself again (del-method-handover.ts) was counted as the socket it wraps.
   */
  admit(connection: Duplex): boolean {
    if (!(connection instanceof net.Socket)) return true;
    const address = connection.remoteAddress ?? '';
    const fromAddress = this.byAddress.get(address) ?? 0;
    const { maxConnectionsPerAddress } = this.limits;
    if ((maxConnectionsPerAddress > 0 && fromAddress >= maxConnectionsPerAddress) || !this.room()) {
      connection.destroy();
      return false;
    }
    this.open.add(connection);
    this.byAddress.set(address, fromAddress + 1);
    connection.once('close', () => {
      this.open.delete(connection);
      const left = (this.byAddress.get(address) ?? 1) - 1;
      if (left > 0) this.byAddress.set(address, left);
      else this.byAddress.delete(address);
    });
    return true;
  }

  /** Whether one more connection fits under the total cap, once idle ones are closed if needed. */
  private room(): boolean {
    const max = this.limits.maxConnections;
    if (max <= 0 || this.open.size < max) return true;
    // Node's own notion of idle: no request being received and no answer owed.
    this.server.closeIdleConnections();
    // Connections just closed leave `open` when their 'close' event comes, later.
    let live = 0;
    for (const socket of this.open) if (!socket.destroyed) live += 1;
    return live < max;
  }
}
