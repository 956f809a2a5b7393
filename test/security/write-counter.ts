import type { TestGateway } from '../helpers/gateway';

const WRITE_COMMANDS = new Set([
  'insert',
  'update',
  'delete',
  'findAndModify',
  'createIndexes',
  'drop',
  'dropDatabase',
]);

/**
 * Counts the commands reaching the database from this process (the gateway, and the test through
 * the same connection) while `action` runs: `writes` must stay 0 for every refused request; `all`
 * is 0 when the refusal came before any database work. Works in both database modes
 * (`TestGateway.onCommand`).
 */
export async function countCommands<T>(
  gw: TestGateway,
  action: () => Promise<T>,
): Promise<{ result: T; writes: number; all: number }> {
  let writes = 0;
  let all = 0;
  const listener = (name: string): void => {
    all += 1;
    if (WRITE_COMMANDS.has(name)) writes += 1;
  };
  const stop = gw.onCommand(listener);
  try {
    const result = await action();
    return { result, writes, all };
  } finally {
    stop();
  }
}
