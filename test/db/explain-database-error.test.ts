import { explainDatabaseError } from '../../src/db/explain-database-error';

const WHERE = { mongodbUri: 'mongodb://ops:s3cret@db.internal:27017/crm', dataDir: '/srv/data' };

describe('explainDatabaseError', () => {
  it.each([
    [
      'connect ECONNREFUSED 10.0.0.5:27017',
      'nothing accepts connections at that host and port (ECONNREFUSED)',
    ],
    ['getaddrinfo ENOTFOUND db.internal', 'the host name does not resolve (ENOTFOUND)'],
    ['Authentication failed.', 'the server refused the user or password in MONGODB_URI'],
    [
      'Command create requires authentication',
      'the server requires credentials MONGODB_URI does not give',
    ],
    ['Server selection timed out after 3000 ms', 'no server answered in time'],
  ])('names MONGODB_URI, masked, and the likely cause of "%s"', (driver, cause) => {
    const error = explainDatabaseError(new Error(driver), WHERE);
    expect(error.message).toContain(
      `Cannot use the database of MONGODB_URI (mongodb://ops:****@db.internal:27017/crm): ${cause}`,
    );
    expect(error.message).toContain(`[${driver}]`);
    expect(error.message).not.toContain('s3cret');
  });

  it('masks the URI wherever the driver quoted it', () => {
    const error = explainDatabaseError(
      new Error(`Invalid connection string "${WHERE.mongodbUri}"`),
      WHERE,
    );
    expect(error.message).not.toContain('s3cret');
    expect(error.message).toContain('mongodb://ops:****@db.internal:27017/crm');
  });

  it('names DATA_DIR for the embedded database', () => {
    expect(
      explainDatabaseError(new Error('the data directory is locked by process 42'), {
        mongodbUri: undefined,
        dataDir: '/srv/data',
      }).message,
    ).toBe(
      'Cannot open the embedded database in DATA_DIR (/srv/data): the data directory is locked by process 42',
    );
  });
});
