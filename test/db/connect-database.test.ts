import mongoose from 'mongoose';
import { connectDatabase } from '../../src/db/connect-database';

describe('connectDatabase', () => {
  it('starts the embedded server in memory when no URI is given and connects mongoose to it', async () => {
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

  it('connects to a URI without starting a server', async () => {
    const host = await connectDatabase({ inMemory: true });
    const uri = host.uri;
    await mongoose.disconnect();
    const db = await connectDatabase({ uri, dbName: 'via_uri' });
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
