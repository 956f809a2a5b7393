import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('transactions on a standalone', () => {
  const target = useTarget('txn');

  it('refuses a transaction number with IllegalOperation (20), like a standalone mongod', async () => {
    const err = (await target()
      .db.command({
        insert: 'tx',
        documents: [{ a: 1 }],
        txnNumber: 1,
        startTransaction: true,
        autocommit: false,
      })
      .catch((e: unknown) => e)) as MongoServerError;
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err.code).toBe(20);
    expect(err.codeName).toBe('IllegalOperation');
    expect(await target().db.collection('tx').countDocuments()).toBe(0);
  });

  it('makes session.withTransaction fail and applies nothing', async () => {
    const session = target().client.startSession();
    try {
      const err = await session
        .withTransaction(async () => {
          await target().db.collection('tx').insertOne({ b: 1 }, { session });
        })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(Error);
      // The driver rewrites code 20 "Transaction numbers are only allowed..." into this message.
      expect((err as Error).message).toMatch(
        /does not support retryable writes|Transaction numbers are only allowed/,
      );
      expect(originalCode(err)).toBe(20);
    } finally {
      await session.endSession();
    }
    expect(await target().db.collection('tx').countDocuments()).toBe(0);
  });
});

/** The driver rewraps code 20 on writes as "does not support retryable writes", keeping the server's error. */
function originalCode(err: unknown): number | undefined {
  const e = err as { code?: number; originalError?: { code?: number } };
  return e.originalError?.code ?? e.code;
}
