import fc from 'fast-check';
import { ObjectId, type Document } from 'bson';
import { Authenticator } from '../../src/store/auth/authenticator';
import { commandRegistry } from '../../src/store/commands/registry';
import { CursorRegistry } from '../../src/store/cursors';
import { RequestHandler } from '../../src/store/handler';
import { Catalog } from '../../src/store/storage/catalog';
import { MemoryJournal } from '../../src/store/storage/memory-journal';

const connection = {
  id: 1,
  remoteAddress: '127.0.0.1:1',
  auth: new Authenticator(null).forConnection(),
};

async function setup(): Promise<{
  handler: RequestHandler;
  catalog: Catalog;
  cursors: CursorRegistry;
}> {
  const catalog = await Catalog.open(new MemoryJournal());
  const cursors = new CursorRegistry();
  return { handler: new RequestHandler(catalog, cursors), catalog, cursors };
}

// Values shaped like what arrives in commands: scalars, ObjectIds, operator-looking keys, nesting.
const value: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: 'small' },
    fc.integer({ min: -3, max: 3 }),
    fc.double(),
    fc.string({ maxLength: 4 }),
    fc.boolean(),
    fc.constant(null),
    fc.constant(new ObjectId('64b7f0a0a0a0a0a0a0a0a0a0')),
    fc.constantFrom('$a', '$set', 'c', 'a.b', '$$ROOT'),
    fc.array(tie('v'), { maxLength: 3 }),
    fc.dictionary(
      fc.constantFrom(
        'a',
        'b',
        '_id',
        '$set',
        '$inc',
        '$gt',
        '$in',
        '$match',
        'q',
        'u',
        'key',
        'name',
        'filter',
        'x.y',
      ),
      tie('v'),
      { maxKeys: 3 },
    ),
  ),
})).v;

const commandNames = [...new Set([...commandRegistry.values()].map((c) => c.name))];

describe('RequestHandler', () => {
  it('answers every command body with a reply and never throws', async () => {
    const { handler, cursors } = await setup();
    await handler.runCommand(
      'fz',
      {
        insert: 'c',
        documents: [
          { _id: 1, a: 1 },
          { _id: 2, a: [1, 2] },
        ],
      },
      connection,
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...commandNames),
        fc.constantFrom<unknown>('c', 'd', 1, '', null, 'bad$'),
        fc.dictionary(
          fc.constantFrom(
            'filter',
            'query',
            'documents',
            'updates',
            'deletes',
            'pipeline',
            'indexes',
            'index',
            'key',
            'sort',
            'projection',
            'update',
            'remove',
            'cursor',
            'limit',
            'skip',
            'batchSize',
            'to',
            'new',
            'upsert',
          ),
          value,
          { maxKeys: 4 },
        ),
        async (name, target, rest) => {
          const reply: Document = await handler.runCommand(
            'fz',
            { [name]: target, ...rest },
            connection,
          );
          expect([0, 1]).toContain(reply.ok);
          if (reply.ok === 0) {
            expect(typeof reply.errmsg).toBe('string');
            expect(typeof reply.code).toBe('number');
            expect(typeof reply.codeName).toBe('string');
            // InternalError would mean an unexpected exception inside the store: bad input must
            // be named as such (BadValue, TypeMismatch, ...).
            expect({ name, errmsg: reply.errmsg, code: reply.code }).not.toMatchObject({ code: 1 });
          }
        },
      ),
      { numRuns: 400 },
    );
    const ping = await handler.runCommand('admin', { ping: 1 }, connection);
    expect(ping).toEqual({ ok: 1 });
    cursors.close();
  });

  it('refuses a transaction number before the command runs', async () => {
    const { handler, catalog, cursors } = await setup();
    const reply = await handler.runCommand(
      't',
      {
        insert: 'c',
        documents: [{ a: 1 }],
        txnNumber: 1,
        autocommit: false,
        startTransaction: true,
      },
      connection,
    );
    expect(reply).toEqual({
      ok: 0,
      errmsg: 'Transaction numbers are only allowed on a replica set member or mongos',
      code: 20,
      codeName: 'IllegalOperation',
    });
    expect(catalog.collection('t', 'c')).toBeUndefined();
    cursors.close();
  });

  it('reports the command name and database to listeners, and survives a throwing listener', async () => {
    const { handler, cursors } = await setup();
    const seen: string[] = [];
    handler.on('command', (name, db) => seen.push(`${db}.${name}`));
    await handler.runCommand('x', { find: 'c' }, connection);
    expect(seen).toEqual(['x.find']);
    handler.on('command', () => {
      throw new Error('listener broke');
    });
    const reply = await handler.runCommand('x', { ping: 1 }, connection);
    expect(reply.ok).toBe(0);
    cursors.close();
  });
});
