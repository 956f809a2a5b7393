import { Role } from '../../src/auth/role';
import type { Principal } from '../../src/auth/principal';
import { AnswerCache, callerKey } from '../../src/data/answer-cache';
import { requestData, type RequestData } from '../../src/data/request-data';
import { SCOPES, type Scope, type VersionView } from '../../src/data/scopes';
import { VersionedCache } from '../../src/data/versioned-cache';

const DAY = 86_400_000;

/** A view with every counter at 0 but those given. */
function view(versions: Partial<Record<Scope, number>> = {}): VersionView {
  return { versions: { ...Object.fromEntries(SCOPES.map((s) => [s, 0])), ...versions } as Record<Scope, number> };
}

/** A request under `v` that read `scopes`. */
function reading(v: VersionView, ...scopes: Scope[]): RequestData {
  const data = requestData(v);
  for (const scope of scopes) data.noteRead(scope);
  return data;
}

describe('AnswerCache', () => {
  it('keeps an answer while the scopes it read keep their versions, whatever else is written', () => {
    const cache = new AnswerCache<string>();
    cache.keep('k', 'answer', 6, reading(view(), 'members', 'pipeline_snapshots'));
    expect(cache.get('k', view())).toBe('answer');
    expect(cache.get('k', view({ settings: 3, targets: 1, teams: 2 }))).toBe('answer');
    expect(cache.get('k', view({ members: 1 }))).toBeUndefined();
    expect(cache.get('k', view({ pipeline_snapshots: 1 }))).toBeUndefined();
  });

  it('drops answers when the UTC day turns', () => {
    let now = Date.UTC(2026, 10, 21, 23, 59, 59);
    const cache = new AnswerCache<string>({ now: () => now });
    cache.keep('k', 'today', 5, reading(view(), 'settings'));
    expect(cache.get('k', view())).toBe('today');
    now += 2_000; // the next day
    expect(cache.get('k', view())).toBeUndefined();
    cache.keep('k', 'tomorrow', 5, reading(view(), 'settings'));
    now += DAY - 3_000; // still the same UTC day
    expect(cache.get('k', view())).toBe('tomorrow');
  });

  it('never keeps an answer its request noted as depending on more than the data', () => {
    const cache = new AnswerCache<string>();
    const data = reading(view(), 'settings');
    data.noteUnkeepable();
    cache.keep('k', 'status', 6, data);
    expect(cache.get('k', view())).toBeUndefined();
  });

  it('keeps nothing when caching is off (CACHE_MAX_AGE_MS=0)', () => {
    const cache = new AnswerCache<string>({ enabled: false });
    cache.keep('k', 'answer', 6, reading(view(), 'settings'));
    expect(cache.get('k', view())).toBeUndefined();
  });

  it('stays within its bounds: entries, total bytes, and no single answer over a sixteenth of them', () => {
    const cache = new AnswerCache<string>({ maxEntries: 3, maxBytes: 1600 });
    cache.keep('big', 'x', 101, reading(view()));
    expect(cache.get('big', view())).toBeUndefined();
    for (const key of ['a', 'b', 'c']) cache.keep(key, key, 100, reading(view()));
    expect(cache.size).toBe(3);
    cache.keep('d', 'd', 100, reading(view())); // over the entry limit: starts over
    expect(cache.size).toBe(1);
    expect(cache.get('a', view())).toBeUndefined();
    expect(cache.get('d', view())).toBe('d');
  });

  it('tells callers apart by subject, role and team', () => {
    const member: Principal = { subject: 'm1', role: Role.MEMBER, memberId: 'm1', teamId: 't1' };
    expect(callerKey(member)).not.toBe(callerKey({ ...member, role: Role.MANAGER }));
    expect(callerKey(member)).not.toBe(callerKey({ ...member, teamId: 't2' }));
    expect(callerKey(member)).not.toBe(callerKey({ ...member, subject: 'm2', memberId: 'm2' }));
    expect(callerKey(null)).toBe('anonymous');
  });
});

describe('VersionedCache', () => {
  it('reads once per version, notes its scope as read, and starts over when the version moves', async () => {
    const cache = new VersionedCache<string>('settings');
    let reads = 0;
    const read = async () => `read ${++reads}`;
    const first = reading(view({ settings: 1 }));
    expect(await cache.get(first, 'k', read)).toBe('read 1');
    expect(await cache.get(reading(view({ settings: 1, members: 9 })), 'k', read)).toBe('read 1');
    expect(first.reads).toEqual(['settings']);
    expect(await cache.get(reading(view({ settings: 2 })), 'k', read)).toBe('read 2');
  });

  it('reads through for a request with an older view, and keeps nothing read under a view that was overtaken', async () => {
    const cache = new VersionedCache<string>('targets');
    let reads = 0;
    const read = async () => `read ${++reads}`;
    await cache.get(reading(view({ targets: 5 })), 'k', read);
    // A request that arrived before the write the cache has already seen reads the database.
    expect(await cache.get(reading(view({ targets: 4 })), 'k', read)).toBe('read 2');
    expect(await cache.get(reading(view({ targets: 5 })), 'k', read)).toBe('read 1');
    // A read in flight while a newer view starts the entries over is not kept.
    let release!: () => void;
    const slow = cache.get(reading(view({ targets: 6 })), 'slow', () => new Promise<string>((resolve) => (release = () => resolve('old'))));
    await cache.get(reading(view({ targets: 7 })), 'k', read);
    release();
    expect(await slow).toBe('old');
    expect(cache.peek(reading(view({ targets: 7 })), 'slow')).toBeUndefined();
  });

  it('reads through when caching is off', async () => {
    const cache = new VersionedCache<string>('members', 10, false);
    let reads = 0;
    await cache.get(reading(view()), 'k', async () => `read ${++reads}`);
    expect(await cache.get(reading(view()), 'k', async () => `read ${++reads}`)).toBe('read 2');
  });
});
