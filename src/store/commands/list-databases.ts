import { calculateObjectSize, type Document } from 'bson';
import { compileFilter } from '../query/filter';
import { optionalBoolean, optionalObject } from './arguments';
import type { Command } from './command';

export const listDatabasesCommand: Command = {
  name: 'listDatabases',
  run(ctx) {
    const filter = compileFilter(optionalObject(ctx.body, 'filter') ?? {});
    const nameOnly = optionalBoolean(ctx.body, 'nameOnly') === true;
    let totalSize = 0;
    const databases: Document[] = [];
    for (const name of ctx.catalog.databaseNames()) {
      let sizeOnDisk = 0;
      if (!nameOnly) {
        for (const coll of ctx.catalog.collections(name))
          for (const doc of coll.docs.values()) sizeOnDisk += calculateObjectSize(doc);
      }
      const entry = nameOnly ? { name } : { name, sizeOnDisk, empty: sizeOnDisk === 0 };
      if (!filter.test(entry)) continue;
      totalSize += sizeOnDisk;
      databases.push(entry);
    }
    return nameOnly
      ? { databases }
      : { databases, totalSize, totalSizeMb: Math.floor(totalSize / 1024 / 1024) };
  },
};
