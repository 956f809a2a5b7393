// Child process of crash.test.ts: runs the embedded server on a data directory and writes through
// the official driver until it is killed, printing each acknowledged write on stdout:
//   READY <uri>
//   ACK <_id hex> <version> <checksum>     (after insertOne/updateOne resolved)
//   STEP <compaction step>                   (just before killing itself, when CRASH_AT_STEP says so)
// Run with `node -r ./test/helpers/ts-register.js crash-writer.ts <dataDir>`.
import { writeSync } from 'node:fs';
import { randomBytes, randomInt } from 'node:crypto';
import { Decimal128, Long, ObjectId, type Document } from 'bson';
import { MongoClient } from 'mongodb';
import { EmbeddedMongoServer } from '../../../src/store/server';
import { FileJournal, type CompactionStep } from '../../../src/store/storage/file-journal';
import { contentChecksum } from './checksum';
import { EagerCompactionJournal } from './eager-compaction-journal';

const WRITERS = 8;

const say = (line: string): void => void writeSync(1, `${line}\n`);

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error('expected a data directory argument');
  const compactAtBytes = Number(process.env.COMPACT_AT_BYTES ?? 0);
  const crashAtStep = process.env.CRASH_AT_STEP as CompactionStep | undefined;
  const fileJournal = new FileJournal(dataDir, {
    afterCompactionStep: (step) => {
      if (step !== crashAtStep) return;
      say(`STEP ${step}`);
      process.kill(process.pid, 'SIGKILL');
    },
  });
  const journal =
    compactAtBytes > 0 ? new EagerCompactionJournal(fileJournal, compactAtBytes) : fileJournal;
  const server = await EmbeddedMongoServer.start({ journal });
  const client = new MongoClient(server.uri, { maxPoolSize: WRITERS });
  const docs = client.db('crash').collection('docs');
  say(`READY ${server.uri}`);

  const writer = async (w: number): Promise<never> => {
    const mine: Document[] = [];
    for (let seq = 0; ; seq++) {
      if (mine.length > 0 && seq % 4 === 3) {
        // Update a document acknowledged before: the new version must survive as a whole.
        const doc = mine[randomInt(mine.length)];
        const payload = randomBytes(randomInt(1, 600)).toString('base64');
        const next: Document = { ...doc, payload, version: (doc.version as number) + 1 };
        next.sum = contentChecksum(next);
        await docs.updateOne(
          { _id: doc._id },
          { $set: { payload, version: next.version, sum: next.sum } },
        );
        Object.assign(doc, next);
        say(`ACK ${doc._id.toHexString()} ${next.version} ${next.sum}`);
        continue;
      }
      const doc: Document = {
        _id: new ObjectId(),
        writer: w,
        seq,
        version: 1,
        payload: randomBytes(randomInt(1, 2000)).toString('base64'),
        price: Decimal128.fromString(`${randomInt(1_000_000)}.${randomInt(100)}`),
        // Beyond 2^53, so the driver keeps it a Long on the way back and the checksum sees the type.
        big: Long.fromBigInt(2n ** 53n + BigInt(randomInt(2 ** 40)) * 1000n),
        ratio: Math.random(),
        when: new Date(),
        tags: [w, `seq-${seq}`, { nested: [seq, null] }],
      };
      doc.sum = contentChecksum(doc);
      await docs.insertOne(doc);
      mine.push(doc);
      say(`ACK ${doc._id.toHexString()} 1 ${doc.sum}`);
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, (_, w) => writer(w)));
}

main().catch((err: unknown) => {
  process.stderr.write(`crash-writer: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
