import net, { type AddressInfo, type Socket } from 'node:net';
import { MongoClient } from 'mongodb';
import { watchMonitor } from '../../src/db/monitor-watchdog';
import { EmbeddedMongoServer } from '../../src/store/server';

/**
 * A TCP relay in front of the store that can go silent: while `silent`, bytes are swallowed in both
 * directions and sockets stay open, so a heartbeat sent then never ends on its own before the
 * client's (long) socket timeout. That stands for the driver's heartbeat that waits for ever.
 */
async function silentRelay(target: number) {
  const pairs = new Set<[Socket, Socket]>();
  const relay = { silent: false };
  const server = net.createServer((client) => {
    const upstream = net.connect(target, '127.0.0.1');
    const pair: [Socket, Socket] = [client, upstream];
    pairs.add(pair);
    client.on('data', (chunk) => {
      if (!relay.silent) upstream.write(chunk);
    });
    upstream.on('data', (chunk) => {
      if (!relay.silent) client.write(chunk);
    });
    const end = () => {
      client.destroy();
      upstream.destroy();
      pairs.delete(pair);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    set silent(value: boolean) {
      relay.silent = value;
    },
    /** Drops every relayed connection that went silent: what was swallowed is gone for good. */
    dropAll() {
      for (const [a, b] of pairs) {
        a.destroy();
        b.destroy();
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const [a, b] of pairs) {
          a.destroy();
          b.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

describe('the driver monitor watchdog', () => {
  it('restarts a client whose heartbeat has not ended well past the bound, and the client works again', async () => {
    const store = await EmbeddedMongoServer.start({});
    const relay = await silentRelay(store.port);
    // The client's own bound on a heartbeat is a minute away: only the watchdog can end this one.
    const client = new MongoClient(`mongodb://127.0.0.1:${relay.port}/?directConnection=true`, {
      heartbeatFrequencyMS: 500,
      connectTimeoutMS: 60_000,
      serverSelectionTimeoutMS: 1_000,
    });
    await client.connect();
    const restarts: string[] = [];
    const watchdog = watchMonitor(client, {
      heartbeatFrequencyMS: 500,
      connectTimeoutMS: 300,
      onRestart: (reason) => restarts.push(reason),
    });
    try {
      const things = client.db('w').collection('things');
      await things.insertOne({ _id: 1 } as never);

      relay.silent = true;
      await new Promise((resolve) => setTimeout(resolve, 3_000));
      expect(restarts).toHaveLength(1);
      expect(restarts[0]).toMatch(/heartbeat to 127\.0\.0\.1:\d+ has not ended after \d+ ms/);

      relay.silent = false;
      relay.dropAll();
      let found: unknown = null;
      for (let attempt = 0; found === null && attempt < 20; attempt += 1) {
        found = await things.findOne({ _id: 1 } as never).catch(() => null);
        if (found === null) await new Promise((resolve) => setTimeout(resolve, 250));
      }
      expect(found).toEqual({ _id: 1 });
      expect(restarts).toHaveLength(1);
    } finally {
      watchdog.stop();
      await client.close();
      await relay.close();
      await store.stop();
    }
  });

  it('leaves a client alone while its heartbeats end', async () => {
    const store = await EmbeddedMongoServer.start({});
    const client = new MongoClient(`mongodb://127.0.0.1:${store.port}/?directConnection=true`, {
      heartbeatFrequencyMS: 200,
    });
    await client.connect();
    const restarts: string[] = [];
    const watchdog = watchMonitor(client, {
      heartbeatFrequencyMS: 200,
      connectTimeoutMS: 100,
      onRestart: (reason) => restarts.push(reason),
    });
    try {
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      expect(restarts).toEqual([]);
    } finally {
      watchdog.stop();
      await client.close();
      await store.stop();
    }
  });
});
