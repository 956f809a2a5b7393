import mongoose from 'mongoose';
import { connectDatabase } from '../../src/db/connect-database';

describe('connectDatabase', () => {
  const saved = process.env.MONGODB_URI;

  afterEach(() => {
    if (saved === undefined) delete process.env.MONGODB_URI;
    else process.env.MONGODB_URI = saved;
  });

  it('starts the embedded server in memory when MONGODB_URI is unset and connects mongoose to it', async () => {
    delete process.env.MONGODB_URI;
    const db = await connectDatabase({ inMemory: true });
    try {
      expect(db.embedded).not.toBeNull();
      expect(db.uri).toBe(db.embedded!.uri);
      expect(db.connection.readyState).toBe(1);
      expect(mongoose.get('strictQuery')).toBe('throw');
      expect(mongoose.get('sanitizeFilter')).toBe(true);
      await db.connection.db!.collection('probe').insertOne({ a: 1 });
      expect(await db.connection.db!.collection('probe').countDocuments()).toBe(1);
    } finally {
      await db.close();
    }
    expect(db.connection.readyState).toBe(0);
  });

  it('connects to MONGODB_URI without starting a server', async () => {
    delete process.env.MONGODB_URI;
    const host = await connectDatabase({ inMemory: true });
    const uri = host.uri;
    await mongoose.disconnect();
    process.env.MONGODB_URI = uri;
    const db = await connectDatabase({ dbName: 'via_uri' });
    try {
      expect(db.embedded).toBeNull();
      expect(db.uri).toBe(uri);
      expect(db.connection.name).toBe('via_uri');
    } finally {
      await db.close();
      await host.embedded!.stop();
    }
  });
});
