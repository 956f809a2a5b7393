import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';

/** Debian's redis-server (`apt-get install redis-server`; .ci/run installs it). */
export const REDIS_SERVER = '/usr/bin/redis-server';

/** `describe`, or `describe.skip` saying why when redis-server is not installed. */
export const describeWithRedis: jest.Describe = existsSync(REDIS_SERVER)
  ? describe
  : (() => {
      console.warn(
        `${REDIS_SERVER} is not installed: the Redis rate-limit tests are skipped (apt-get install redis-server)`,
      );
      return describe.skip;
    })();

export async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface RedisServer {
  port: number;
  /** `redis://:<password>@127.0.0.1:<port>/<db>`, the password left out when there is none. */
  url(db?: number, password?: string): string;
  /** Stops the server (SIGTERM) and waits for it to exit. */
  stop(): Promise<void>;
}

/**
 * Starts a redis-server of its own on 127.0.0.1 (a free port unless `port` is given), with no
 * persistence, and `requirepass` when `password` is set; resolves once it accepts connections.
 */
export async function startRedis(
  options: { password?: string; port?: number } = {},
): Promise<RedisServer> {
  const port = options.port ?? (await freePort());
  const args = ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'];
  if (options.password !== undefined) args.push('--requirepass', options.password);
  const child: ChildProcess = spawn(REDIS_SERVER, args, { stdio: 'ignore' });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const server: RedisServer = {
    port,
    url: (db, password = options.password) =>
      `redis://${password === undefined ? '' : `:${password}@`}127.0.0.1:${port}${db === undefined ? '' : `/${db}`}`,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const up = await new Promise<boolean>((resolve) => {
      const socket = net.connect(port, '127.0.0.1', () => {
        socket.end();
        resolve(true);
      });
      socket.on('error', () => resolve(false));
    });
    if (up) return server;
    await new Promise((r) => setTimeout(r, 50));
  }
  await server.stop();
  throw new Error(`redis-server did not listen on port ${port}`);
}
