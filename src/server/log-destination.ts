import type { DestinationStream } from 'pino';
import pretty from 'pino-pretty';

/**
 * Where the gateway's log lines go: one JSON line each for machines (a file, a pipe, a log
 * collector), readable lines with colours when a person watches the terminal.
 */
export function logDestination(
  stream: NodeJS.WriteStream = process.stdout,
): DestinationStream | undefined {
  if (!stream.isTTY) return undefined; // pino's own stdout writer: JSON
  return pretty({
    destination: stream,
    colorize: true,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname',
  });
}
