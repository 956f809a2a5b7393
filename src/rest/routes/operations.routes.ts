import mongoose from 'mongoose';
import { ServiceUnavailableError, ErrorCode } from '../../errors';
import type { RouteDefinition } from '../route-definition';

/** How long readiness waits for the database's answer before calling it unreachable. */
const PING_TIMEOUT_MS = 2_000;

async function pingDatabase(): Promise<void> {
  // Models are bound to mongoose's default connection, so its health is the gateway's.
  const { connection } = mongoose;
  if (connection.readyState !== mongoose.ConnectionStates.connected || !connection.db)
    throw new ServiceUnavailableError();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ServiceUnavailableError()), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([connection.db.command({ ping: 1 }), timeout]);
  } catch {
    throw new ServiceUnavailableError();
  } finally {
    clearTimeout(timer);
  }
}

const statusSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string' } },
};

export const operationsRoutes: RouteDefinition[] = [
  {
    method: 'GET',
    path: '/healthz',
    summary: 'Liveness: the process is up',
    tag: 'Operations',
    authenticated: false,
    response: statusSchema,
    handler: async () => ({ status: 'ok' }),
  },
  {
    method: 'GET',
    path: '/readyz',
    summary: 'Readiness: the database answers a ping (503 otherwise)',
    tag: 'Operations',
    authenticated: false,
    errors: [ErrorCode.SERVICE_UNAVAILABLE],
    response: statusSchema,
    handler: async () => {
      await pingDatabase();
      return { status: 'ok' };
    },
  },
];
