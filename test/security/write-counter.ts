import type { TestGateway } from '../helpers/gateway';

const WRITE_COMMANDS = new Set(['insert', 'update', 'delete', 'findAndModify', 'createIndexes', 'drop', 'dropDatabase']);

/**
 * Counts the commands reaching the embedded database while `action` runs: `writes` must stay 0
 * for every refused request; `all` is 0 when the refusal came before any database work.
 */
export async function countCommands<T>(gw: TestGateway, action: () => Promise<T>): Promise<{ result: T; writes: number; all: number }> {
  let writes = 0;
  let all = 0;
  const listener = (name: string): void => {
    all += 1;
    if (WRITE_COMMANDS.has(name)) writes += 1;
  };
  gw.server.on('command', listener);
  try {
    const result = await action();
    return { result, writes, all };
  } finally {
    gw.server.off('command', listener);
  }
}
