import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import mongoose, { Schema } from 'mongoose';
import { EmbeddedMongoServer } from '../../src/store/server';
import { busyWork, percentile, timeConcurrent } from './bench-timer';

/** Where the embedded server runs relative to the gateway's event loop. */
export type Placement = 'in-process' | 'worker thread';

export interface PlacementRow {
  placement: Placement;
  gatewayMicrosPerRequest: number;
  requests: number;
  perSecond: number;
  p50Micros: number;
  p99Micros: number;
}

interface Running {
  uri: string;
  stop(): Promise<void>;
}

async function startIn(placement: Placement): Promise<Running> {
  if (placement === 'in-process') {
    const server = await EmbeddedMongoServer.start();
    return { uri: server.uri, stop: () => server.stop() };
  }
  const worker = new Worker(join(__dirname, 'embedded-server-worker.js'));
  const uri = await new Promise<string>((resolve, reject) => {
    worker.once('message', (m: { uri: string }) => resolve(m.uri));
    worker.once('error', reject);
  });
  return {
    uri,
    stop: async () => {
      await new Promise<void>((resolve) => {
        worker.once('message', () => resolve());
        worker.postMessage('stop');
      });
      await worker.terminate();
    },
  };
}

const itemSchema = new Schema({
  email: { type: String, index: true, unique: true },
  team: { type: Number, index: true },
  score: Number,
  name: String,
});

/**
 * A gateway-like mixed load through mongoose: per request 60% a findOne by an indexed field,
 * 20% a find of up to 20 documents by another indexed field, 20% an updateOne; plus `gatewayMicros` of the gateway's own
 * CPU work (resolvers, serialisation) on the main thread. The question: does moving the store
 * off the main thread pay for the extra hop?
 */
export async function placementBench(
  placement: Placement,
  requests: number,
  concurrency: number,
  gatewayMicros: number,
): Promise<PlacementRow> {
  const running = await startIn(placement);
  const connection = await mongoose
    .createConnection(running.uri, { dbName: 'bench', maxPoolSize: concurrency })
    .asPromise();
  try {
    const Item = connection.model('Item', itemSchema);
    await Item.init();
    const count = 5000;
    for (let i = 0; i < count; i += 1000) {
      await Item.insertMany(
        Array.from({ length: 1000 }, (_, k) => ({
          email: `m${i + k}@example.com`,
          team: (i + k) % 50,
          score: 0,
          name: `Member ${i + k}`,
        })),
      );
    }
    const request = async (i: number): Promise<void> => {
      const key = (i * 2654435761) % count;
      const kind = i % 5;
      let result: unknown;
      if (kind < 3) result = await Item.findOne({ email: `m${key}@example.com` }).lean();
      else if (kind === 3)
        result = await Item.find({ team: key % 50 })
          .limit(20)
          .lean();
      else result = await Item.updateOne({ email: `m${key}@example.com` }, { $inc: { score: 1 } });
      if (!result) throw new Error(`request ${i} found nothing`);
      busyWork(gatewayMicros);
      JSON.stringify(result);
    };
    await timeConcurrent(500, concurrency, request); // warm-up
    const timed = await timeConcurrent(requests, concurrency, request);
    return {
      placement,
      gatewayMicrosPerRequest: gatewayMicros,
      requests,
      perSecond: timed.perSecond,
      p50Micros: percentile(timed.latenciesMicros, 50),
      p99Micros: percentile(timed.latenciesMicros, 99),
    };
  } finally {
    await connection.close();
    await running.stop();
  }
}
