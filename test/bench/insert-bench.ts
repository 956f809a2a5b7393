import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../src/store/server';
import { FileJournal } from '../../src/store/storage/file-journal';
import { timeConcurrent, timeSequential, timeSync, type Rate } from './bench-timer';
import { docFor } from './lookup-bench';

export interface InsertRow {
  mode: string;
  concurrency: number;
  rate: Rate;
  /** fsyncs per acknowledged insert (file journal only). */
  fsyncsPerWrite?: number;
}

export interface InsertResult {
  rows: InsertRow[];
  reference: Rate;
}

/**
 * insertOne through the driver: in memory vs on disk (every write fsynced before it is
 * acknowledged), one writer at a time and many at once (where group commit shares fsyncs),
 * beside a plain `Map.set`.
 */
export async function insertBench(ops: number, concurrency: number): Promise<InsertResult> {
  const rows: InsertRow[] = [];
  const memory = await EmbeddedMongoServer.start();
  const dir = mkdtempSync(join(tmpdir(), 'pg-bench-'));
  const journal = new FileJournal(dir);
  const disk = await EmbeddedMongoServer.start({ journal });
  try {
    for (const [mode, server] of [
      ['in memory', memory],
      ['on disk (fsync)', disk],
    ] as const) {
      const client = new MongoClient(server.uri, { maxPoolSize: concurrency });
      const coll = client.db('bench').collection('inserts');
      for (const lanes of [1, concurrency]) {
        const before = mode === 'on disk (fsync)' ? { ...journal.stats } : undefined;
        const docs: Document[] = Array.from({ length: ops + 200 }, (_, i) => docFor(i));
        const insert = async (i: number): Promise<void> => void (await coll.insertOne(docs[i]));
        const rate =
          lanes === 1
            ? await timeSequential(ops, insert, 0)
            : await timeConcurrent(ops, lanes, insert);
        const { ops: n, seconds, perSecond, meanMicros, cpuMicros } = rate;
        const row: InsertRow = {
          mode,
          concurrency: lanes,
          rate: { ops: n, seconds, perSecond, meanMicros, cpuMicros },
        };
        if (before) {
          const after = journal.stats;
          row.fsyncsPerWrite = (after.syncs - before.syncs) / (after.records - before.records);
        }
        rows.push(row);
        await coll.deleteMany({});
      }
      await client.close();
    }
  } finally {
    await memory.stop();
    await disk.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  const map = new Map<number, Document>();
  const refDocs = Array.from({ length: 100_000 }, (_, i) => docFor(i));
  return { rows, reference: timeSync(100_000, (i) => map.set(i, refDocs[i])) };
}
