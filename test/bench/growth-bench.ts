import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Document } from 'bson';
import { MongoClient, type IndexDescription } from 'mongodb';
import { EmbeddedMongoServer } from '../../src/store/server';

export interface GrowthWindow {
  /** Documents stored at the end of the window. */
  stored: number;
  wallMicrosPerDoc: number;
  cpuMicrosPerDoc: number;
}

export interface GrowthResult {
  docs: number;
  windows: GrowthWindow[];
  dataDirBytes: number;
  /** Start of a server on the data directory (reading the journal), in seconds. */
  loadSeconds: number;
  loadCpuMicrosPerDoc: number;
  /** Heap growth of this process over the load, after a collection when --expose-gc is given. */
  heapBytesPerDoc: number;
  /** The collection's first read after the start (a scan: decoding its documents), in seconds. */
  firstReadSeconds: number;
  firstReadCpuMicrosPerDoc: number;
  /** Heap growth over the load and the first read, per document. */
  readHeapBytesPerDoc: number;
}

/** Deal-like documents as the import stores them: 100 snapshots, the opportunities' three indexes. */
const SNAPSHOTS = 100;
const BATCH = 1000;
const WINDOWS = 10;
const INDEXES: IndexDescription[] = [
  { key: { snapshotId: 1, definitionId: 1, stageId: 1 } },
  { key: { snapshotId: 1, memberId: 1 } },
  { key: { snapshotId: 1, teamId: 1 } },
];

function opportunity(i: number): Document {
  const snapshotId = `snap-${String(i % SNAPSHOTS).padStart(3, '0')}`;
  const dealId = String(1e9 + Math.floor(i / SNAPSHOTS));
  return {
    _id: `${snapshotId}:${dealId}`,
    snapshotId,
    dealId,
    name: `Deal ${dealId}`,
    definitionId: `def-${i % 2}`,
    stageId: `stage-${i % 8}`,
    amount: ((i * 7919) % 100_000) + 0.5,
    memberId: `member-${i % 12}`,
    teamId: `team-${i % 3}`,
    createdAt: new Date(1.7e12 + i * 1000),
    closedAt: new Date(1.71e12 + i * 1000),
    outcome: ['open', 'won', 'lost'][i % 3],
  };
}

const gc = (): void => (globalThis as { gc?: () => void }).gc?.();

/**
 * Inserts `docs` opportunity-shaped documents through the driver into a store on disk (batches of
 * 1000, as the import writes), timing each tenth; then starts a new server on that data directory
 * and times its load, then the collection's first read. Per-document figures that stay flat as the
 * store grows are the point.
 */
export async function growthBench(docs: number): Promise<GrowthResult> {
  const dir = mkdtempSync(join(tmpdir(), 'pg-growth-'));
  try {
    const windows: GrowthWindow[] = [];
    const writer = await EmbeddedMongoServer.start({ dataDir: dir, privateSocket: true });
    const client = new MongoClient(writer.uri);
    try {
      const coll = client.db('bench').collection('opportunities');
      await coll.createIndexes(INDEXES);
      const window = Math.max(BATCH, Math.floor(docs / WINDOWS / BATCH) * BATCH);
      let started = performance.now();
      let cpu = process.cpuUsage();
      for (let i = 0; i < docs; i += BATCH) {
        await coll.insertMany(
          Array.from({ length: Math.min(BATCH, docs - i) }, (_, k) => opportunity(i + k)),
          { ordered: false },
        );
        const stored = Math.min(i + BATCH, docs);
        if (stored % window === 0 || stored === docs) {
          const inWindow = stored - (windows.at(-1)?.stored ?? 0);
          const used = process.cpuUsage(cpu);
          windows.push({
            stored,
            wallMicrosPerDoc: ((performance.now() - started) * 1000) / inWindow,
            cpuMicrosPerDoc: (used.user + used.system) / inWindow,
          });
          started = performance.now();
          cpu = process.cpuUsage();
        }
      }
    } finally {
      await client.close();
      await writer.stop();
    }
    const dataDirBytes = readdirSync(dir).reduce(
      (sum, name) => sum + statSync(join(dir, name)).size,
      0,
    );
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const started = performance.now();
    const cpu = process.cpuUsage();
    const reader = await EmbeddedMongoServer.start({ dataDir: dir, privateSocket: true });
    const loadSeconds = (performance.now() - started) / 1000;
    const used = process.cpuUsage(cpu);
    gc();
    const heapBytesPerDoc = (process.memoryUsage().heapUsed - heapBefore) / docs;
    const readerClient = new MongoClient(reader.uri);
    try {
      const coll = readerClient.db('bench').collection('opportunities');
      // Connects the driver without reading the collection.
      await readerClient.db('bench').command({ ping: 1 });
      const readStarted = performance.now();
      const readCpu = process.cpuUsage();
      // A filter no index serves: the scan reads, so decodes, every document.
      await coll.findOne({ name: 'no such deal' });
      const firstReadSeconds = (performance.now() - readStarted) / 1000;
      const readUsed = process.cpuUsage(readCpu);
      gc();
      return {
        docs,
        windows,
        dataDirBytes,
        loadSeconds,
        loadCpuMicrosPerDoc: (used.user + used.system) / docs,
        heapBytesPerDoc,
        firstReadSeconds,
        firstReadCpuMicrosPerDoc: (readUsed.user + readUsed.system) / docs,
        readHeapBytesPerDoc: (process.memoryUsage().heapUsed - heapBefore) / docs,
      };
    } finally {
      await readerClient.close();
      await reader.stop();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
