/** Internal (benchmark): starting, asking and stopping the servers the gateway bench forks. */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { GatewayAnswer, GatewayRequest } from './gateway-server';
import type { ReferenceMessage } from './reference/reference-messages';

/** Forks a compiled sibling script and waits for its first `ready` message. */
export function start<T extends { type: string }>(
  script: string,
  options: { args?: string[]; env?: NodeJS.ProcessEnv; first?: ReferenceMessage } = {},
): Promise<{ child: ChildProcess; ready: T }> {
  const child = fork(path.join(__dirname, script), options.args ?? [], {
    // BENCH_NODE_ARGS: Node options for the servers, e.g. `--cpu-prof --cpu-prof-dir=/tmp/prof`
    // to profile them under the bench's load (NODE_OPTIONS refuses --cpu-prof).
    execArgv: [
      ...process.execArgv,
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter((arg) => arg !== ''),
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    env: { ...process.env, ...options.env },
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      reject(new Error(`${script} exited with code ${code} before it was ready`)),
    );
    child.on('message', function onReady(message: T) {
      if (message.type !== 'ready') return;
      child.off('message', onReady);
      child.removeAllListeners('exit');
      resolve({ child, ready: message });
    });
    if (options.first) child.send(options.first);
  });
}

/** Sends a request to a gateway child and waits for its count answer. */
export function ask(
  child: ChildProcess,
  request: GatewayRequest,
): Promise<Extract<GatewayAnswer, { type: 'count' }>> {
  return new Promise((resolve) => {
    child.on('message', function onAnswer(message: GatewayAnswer) {
      if (message.type !== 'count') return;
      child.off('message', onAnswer);
      resolve(message);
    });
    child.send(request);
  });
}

export async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.send({ type: 'stop' });
  await exited;
}
