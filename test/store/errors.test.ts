import { errorReply, StoreError } from '../../src/store/errors';
import { compileFilter } from '../../src/store/query/filter';
import { runPipeline } from '../../src/store/query/aggregate';

describe('store errors', () => {
  it("renders a StoreError as mongod's error reply, with extra fields", () => {
    const err = new StoreError('DuplicateKey', 'E11000 duplicate key error', {
      keyValue: { a: 1 },
    });
    expect(errorReply(err)).toEqual({
      ok: 0,
      errmsg: 'E11000 duplicate key error',
      code: 11000,
      codeName: 'DuplicateKey',
      keyValue: { a: 1 },
    });
    expect(err.toWriteError(3)).toEqual({
      index: 3,
      code: 11000,
      errmsg: 'E11000 duplicate key error',
      keyValue: { a: 1 },
    });
  });

  it("turns mingo's complaints into BadValue and unknown stages into 40324", () => {
    let thrown: unknown;
    try {
      compileFilter({ a: { $frob: 1 } }).test({});
    } catch (e) {
      thrown = e;
    }
    expect(errorReply(thrown)).toMatchObject({ ok: 0, code: 2, codeName: 'BadValue' });
    try {
      runPipeline([{ a: 1 }], [{ $frob: {} }], () => []);
    } catch (e) {
      thrown = e;
    }
    expect(errorReply(thrown)).toEqual({
      ok: 0,
      code: 40324,
      codeName: 'Location40324',
      errmsg: "Unrecognized pipeline stage name: '$frob'",
    });
  });

  it('reports anything else as InternalError with its message', () => {
    expect(errorReply(new TypeError('boom'))).toEqual({
      ok: 0,
      errmsg: 'boom',
      code: 1,
      codeName: 'InternalError',
    });
  });
});
