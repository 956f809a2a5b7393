import type { Command } from './command';
import { aggregateCommand } from './aggregate';
import { buildInfoCommand } from './build-info';
import { collModCommand } from './coll-mod';
import { collStatsCommand } from './coll-stats';
import { countCommand } from './count';
import { dbStatsCommand } from './db-stats';
import { distinctCommand } from './distinct';
import { findAndModifyCommand } from './find-and-modify';
import { renameCollectionCommand } from './rename-collection';
import { saslContinueCommand } from './sasl-continue';
import { saslStartCommand } from './sasl-start';
import { serverStatusCommand } from './server-status';
import { setParameterCommand } from './set-parameter';
import { connectionStatusCommand } from './connection-status';
import { createCommand } from './create';
import { createIndexesCommand } from './create-indexes';
import { deleteCommand } from './delete';
import { dropCommand } from './drop';
import { dropDatabaseCommand } from './drop-database';
import { dropIndexesCommand } from './drop-indexes';
import { explainCommand } from './explain';
import { endSessionsCommand, killAllSessionsCommand, refreshSessionsCommand } from './end-sessions';
import { findCommand } from './find';
import { getMoreCommand } from './get-more';
import { getParameterCommand } from './get-parameter';
import { helloCommand } from './hello';
import { insertCommand } from './insert';
import { killCursorsCommand } from './kill-cursors';
import { listCollectionsCommand } from './list-collections';
import { listDatabasesCommand } from './list-databases';
import { listIndexesCommand } from './list-indexes';
import { pingCommand } from './ping';
import { updateCommand } from './update';
import { whatsMyUriCommand } from './whatsmyuri';

const COMMANDS: Command[] = [
  helloCommand,
  saslStartCommand,
  saslContinueCommand,
  pingCommand,
  buildInfoCommand,
  getParameterCommand,
  setParameterCommand,
  connectionStatusCommand,
  whatsMyUriCommand,
  listDatabasesCommand,
  listCollectionsCommand,
  createCommand,
  dropCommand,
  dropDatabaseCommand,
  insertCommand,
  findCommand,
  getMoreCommand,
  killCursorsCommand,
  updateCommand,
  deleteCommand,
  createIndexesCommand,
  listIndexesCommand,
  dropIndexesCommand,
  collModCommand,
  endSessionsCommand,
  killAllSessionsCommand,
  refreshSessionsCommand,
  findAndModifyCommand,
  countCommand,
  distinctCommand,
  aggregateCommand,
  explainCommand,
  renameCollectionCommand,
  collStatsCommand,
  dbStatsCommand,
  serverStatusCommand,
];

/** Commands by lower-cased name (and alias). */
export const commandRegistry: ReadonlyMap<string, Command> = new Map(
  COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])].map((n) => [n.toLowerCase(), c] as const)),
);

export function findCommandByName(name: string): Command | undefined {
  return commandRegistry.get(name.toLowerCase());
}
