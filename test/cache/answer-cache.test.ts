import { EventEmitter } from 'node:events';
import type { ExecutionResult } from 'graphql';
import { Role } from '../../src/auth/role';
import type { Principal } from '../../src/auth/principal';
import { AnswerCache, callerKey } from '../../src/cache/answer-cache';
import { DataVersions } from '../../src/cache/data-versions';
import type { RequestContext } from '../../src/context/request-context';
import { KeptAnswers } from '../../src/graphql/jit/kept-answers';
import type { EmbeddedMongoServer } from '../../src/store/server';

/** DataVersions watching a stand-in server: `write(name)` is a write command reaching it. */
function watchedVersions(): { versions: DataVersions; write(collection: string): void; stop(): void } {
  const server = new EventEmitter();
  const versions = new DataVersions();
  const stop = versions.watch(server as unknown as EmbeddedMongoServer);
  return { versions, write: (collection) => server.emit('command', 'insert', 'db', { insert: collection }), stop };
}

const DAY = 86_400_000;

describe('AnswerCache', () => {
  it('gives back a kept answer until any collection is written', () => {
    const { versions, write } = watchedVersions();
    const cache = new AnswerCache<string>({ versions });
    cache.keep('k', 'answer', 6, cache.begin());
    expect(cache.get('k')).toBe('answer');
    write('some_collection_no_read_depends_on');
    expect(cache.get('k')).toBeUndefined();
  });

  it('does not keep an answer whose computation overlapped a write', () => {
    const { versions, write } = watchedVersions();
    const cache = new AnswerCache<string>({ versions });
    const ticket = cache.begin();
    write('members'); // lands while the answer is being computed
    cache.keep('k', 'stale', 5, ticket);
    expect(cache.get('k')).toBeUndefined();
    cache.keep('k', 'fresh', 5, cache.begin());
    expect(cache.get('k')).toBe('fresh');
  });

  it('drops answers when the UTC day turns, and does not keep one computed across midnight', () => {
    const { versions } = watchedVersions();
    let now = Date.UTC(2026, 10, 21, 23, 59, 59);
    const cache = new AnswerCache<string>({ versions, now: () => now });
    cache.keep('k', 'today', 5, cache.begin());
    const ticket = cache.begin();
    now += 2_000; // the next day
    expect(cache.get('k')).toBeUndefined();
    cache.keep('k', 'computed yesterday', 5, ticket);
    expect(cache.get('k')).toBeUndefined();
    cache.keep('k', 'tomorrow', 5, cache.begin());
    now += DAY - 3_000; // still the same UTC day
    expect(cache.get('k')).toBe('tomorrow');
  });

  it('keeps nothing while versions are not watched (an external MONGODB_URI)', () => {
    const { versions, stop } = watchedVersions();
    stop();
    const cache = new AnswerCache<string>({ versions });
    expect(cache.begin()).toBeNull();
    cache.keep('k', 'answer', 6, cache.begin());
    expect(cache.get('k')).toBeUndefined();
  });

  it('stays within its bounds: entries, total bytes, and no single answer over a sixteenth of them', () => {
    const { versions } = watchedVersions();
    const cache = new AnswerCache<string>({ versions, maxEntries: 3, maxBytes: 1600 });
    cache.keep('big', 'x', 101, cache.begin());
    expect(cache.get('big')).toBeUndefined();
    for (const key of ['a', 'b', 'c']) cache.keep(key, key, 100, cache.begin());
    expect(cache.size).toBe(3);
    cache.keep('d', 'd', 100, cache.begin()); // over the entry limit: starts over
    expect(cache.size).toBe(1);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toBe('d');
  });

  it('tells callers apart by subject, role and team', () => {
    const member: Principal = { subject: 'm1', role: Role.MEMBER, memberId: 'm1', teamId: 't1' };
    expect(callerKey(member)).not.toBe(callerKey({ ...member, role: Role.MANAGER }));
    expect(callerKey(member)).not.toBe(callerKey({ ...member, teamId: 't2' }));
    expect(callerKey(member)).not.toBe(callerKey({ ...member, subject: 'm2', memberId: 'm2' }));
    expect(callerKey(null)).toBe('anonymous');
  });
});

describe('KeptAnswers', () => {
  const principal: Principal = { subject: 'm1', role: Role.MEMBER, memberId: 'm1', teamId: null };
  const context = { requestId: 'r', principal, loaders: {} } as unknown as RequestContext;
  const request = { source: '{ viewer { id } }', operationName: null, operation: 'query' as const, variables: {}, contextValue: context };

  it('runs a repeated query once and serialises it as Apollo does', async () => {
    const { versions } = watchedVersions();
    const kept = new KeptAnswers(new AnswerCache({ versions }));
    let runs = 0;
    const run = async (): Promise<ExecutionResult> => ({ data: { viewer: { id: `run ${++runs}` } } });
    const first = await kept.execute(request, run);
    const second = await kept.execute(request, run);
    expect(runs).toBe(1);
    expect(second).toBe(first);
    expect(kept.stringifyResult({ errors: undefined, data: second.data, extensions: undefined } as never)).toBe(`${JSON.stringify({ data: first.data })}\n`);
    // another caller, other variables, another text: each runs
    await kept.execute({ ...request, contextValue: { ...context, principal: { ...principal, subject: 'm2', memberId: 'm2' } } as RequestContext }, run);
    await kept.execute({ ...request, variables: { year: 2026 } }, run);
    await kept.execute({ ...request, source: '{ viewer { id role } }' }, run);
    expect(runs).toBe(4);
  });

  it('never keeps answers with errors, nor mutations', async () => {
    const { versions } = watchedVersions();
    const kept = new KeptAnswers(new AnswerCache({ versions }));
    let runs = 0;
    const failing = async (): Promise<ExecutionResult> => {
      runs += 1;
      return { data: null, errors: [new Error('not found') as never] };
    };
    await kept.execute(request, failing);
    await kept.execute(request, failing);
    const mutation = { ...request, source: 'mutation { x }', operation: 'mutation' as const };
    const writes = async (): Promise<ExecutionResult> => ({ data: { x: ++runs } });
    await kept.execute(mutation, writes);
    await kept.execute(mutation, writes);
    expect(runs).toBe(4);
  });

  it('serialises anything it did not keep itself', () => {
    const kept = new KeptAnswers();
    const value = { errors: [{ message: 'bad' }], data: null, extensions: undefined };
    expect(kept.stringifyResult(value as never)).toBe(`${JSON.stringify(value)}\n`);
  });
});
