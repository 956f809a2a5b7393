import { MongoServerError } from 'mongodb';
import { useTarget } from './target';

describe('handshake and server commands', () => {
  const target = useTarget('handshake');

  it('answers hello as a writable standalone with mongod limits', async () => {
    const hello = await target().db.admin().command({ hello: 1 });
    expect(hello).toMatchObject({
      ok: 1,
      isWritablePrimary: true,
      maxBsonObjectSize: 16777216,
      maxMessageSizeBytes: 48000000,
      maxWriteBatchSize: 100000,
      logicalSessionTimeoutMinutes: 30,
      readOnly: false,
    });
    expect(hello.localTime).toBeInstanceOf(Date);
    expect(hello.setName).toBeUndefined();
    expect(hello.maxWireVersion).toBeGreaterThanOrEqual(9);
    expect(typeof hello.connectionId).toBe('number');
  });

  it('answers the legacy isMaster with ismaster: true', async () => {
    const reply = await target().db.admin().command({ isMaster: 1 });
    expect(reply.ismaster).toBe(true);
  });

  it('answers ping, buildInfo, getParameter, connectionStatus and whatsmyuri', async () => {
    const admin = target().db.admin();
    expect(await admin.command({ ping: 1 })).toEqual({ ok: 1 });
    const info = await admin.command({ buildInfo: 1 });
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(info.versionArray.slice(0, 3)).toEqual(info.version.split('.').slice(0, 3).map(Number));
    const fcv = await admin.command({ getParameter: 1, featureCompatibilityVersion: 1 });
    expect(fcv.featureCompatibilityVersion.version).toMatch(/^\d+\.\d+$/);
    const status = await admin.command({ connectionStatus: 1 });
    expect(status.authInfo.authenticatedUsers).toEqual([]);
    const me = await admin.command({ whatsmyuri: 1 });
    expect(me.you).toMatch(/^127\.0\.0\.1:\d+$/);
  });

  it('refuses an unknown command with CommandNotFound (59)', async () => {
    const err = await target()
      .db.command({ frobnicate: 1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(MongoServerError);
    expect(err).toMatchObject({
      code: 59,
      codeName: 'CommandNotFound',
      message: "no such command: 'frobnicate'",
    });
  });

  it('reports open cursors in serverStatus', async () => {
    const status = await target().db.admin().command({ serverStatus: 1 });
    expect(typeof status.metrics.cursor.open.total).toBe('number');
  });
});
