import { Role } from '../../src/auth/role';
import type { Principal } from '../../src/auth/principal';
import { AnswerCache, callerKey } from '../../src/data/answer-cache';
import { RequestData } from '../../src/data/request-data';
import { SCOPES, type Scope, type VersionView } from '../../src/data/scopes';
import { VersionedCache } from '../../src/data/versioned-cache';

const DAY = 86_400_000;

/** A view named `id`, every counter at 0 but those given. */
function view(id: number, versions: Partial<Record<Scope, number>> = {}): VersionView {
  return {
    id,
    versions: { ...Object.fromEntries(SCOPES.map((s) => [s, 0])), ...versions } as Record<
      Scope,
      number
    >,
  };
}

/** A request whose view is `v`. */
function under(v: VersionView): RequestData {
  return new RequestData(async () => v);
}

describe('AnswerCache', () => {
  it('keeps an answer exactly while the view it was computed under stands: any write drops it', () => {
    const cache = new AnswerCache<string>();
    cache.keep('k', 'answer', 6, view(1));
    expect(cache.get('k', view(1))).toBe('answer');
    expect(cache.get('k', view(2, { settings: 1 }))).toBeUndefined();
    cache.keep('k', 'again', 6, view(2, { settings: 1 }));
    expect(cache.get('k', view(2, { settings: 1 }))).toBe('again');
  });

  it('drops answers when the UTC day turns', () => {
    let now = Date.UTC(2026, 10, 21, 23, 59, 59);
    const cache = new AnswerCache<string>({ now: () => now });
    cache.keep('k', 'today', 5, view(1));
    expect(cache.get('k', view(1))).toBe('today');
    now += 2_000; // the next day
    expect(cache.get('k', view(1))).toBeUndefined();
    cache.keep('k', 'tomorrow', 5, view(1));
    now += DAY - 3_000; // still the same UTC day
    expect(cache.get('k', view(1))).toBe('tomorrow');
  });

  it('keeps nothing when caching is off (CACHE_MAX_AGE_MS=0)', () => {
    const cache = new AnswerCache<string>({ enabled: false });
    cache.keep('k', 'answer', 6, view(1));
    expect(cache.get('k', view(1))).toBeUndefined();
  });

  it('stays within its byte budget, dropping the least recently used, and never keeps an answer over a sixteenth of it', () => {
    const cache = new AnswerCache<string>({ maxBytes: 1600 });
    cache.keep('big', 'x', 101, view(1));
    expect(cache.get('big', view(1))).toBeUndefined();
    for (let i = 0; i < 16; i += 1) cache.keep(`k${i}`, `v${i}`, 100, view(1));
    expect(cache.size).toBe(16);
    expect(cache.get('k0', view(1))).toBe('v0'); // k0 is now the most recently used
    cache.keep('k16', 'v16', 100, view(1));
    expect(cache.size).toBe(16);
    expect(cache.get('k1', view(1))).toBeUndefined();
    expect(cache.get('k0', view(1))).toBe('v0');
    expect(cache.get('k16', view(1))).toBe('v16');
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
  it('reads once per version of its scope, and starts over when that version moves', async () => {
    const cache = new VersionedCache<string>('settings');
    let reads = 0;
    const read = async () => `read ${++reads}`;
    expect(await cache.get(under(view(1, { settings: 1 })), 'k', read)).toBe('read 1');
    expect(await cache.get(under(view(2, { settings: 1, members: 9 })), 'k', read)).toBe('read 1');
    expect(await cache.get(under(view(3, { settings: 2 })), 'k', read)).toBe('read 2');
  });

  it('reads through for a request with an older view, and keeps nothing read under a view that was overtaken', async () => {
    const cache = new VersionedCache<string>('targets');
    let reads = 0;
    const read = async () => `read ${++reads}`;
    await cache.get(under(view(5, { targets: 5 })), 'k', read);
    // A request that arrived before the write the cache has already seen reads the database.
    expect(await cache.get(under(view(4, { targets: 4 })), 'k', read)).toBe('read 2');
    expect(await cache.get(under(view(5, { targets: 5 })), 'k', read)).toBe('read 1');
    // A read in flight while a newer view starts the entries over is not kept.
    let release!: () => void;
    const slow = cache.get(
      under(view(6, { targets: 6 })),
      'slow',
      () => new Promise<string>((resolve) => (release = () => resolve('old'))),
    );
    await cache.get(under(view(7, { targets: 7 })), 'k', read);
    release();
    expect(await slow).toBe('old');
    expect(await cache.get(under(view(7, { targets: 7 })), 'slow', async () => 'new')).toBe('new');
  });

  it('reads through when caching is off', async () => {
    const cache = new VersionedCache<string>('members', 10, false);
    let reads = 0;
    await cache.get(under(view(1)), 'k', async () => `read ${++reads}`);
    expect(await cache.get(under(view(1)), 'k', async () => `read ${++reads}`)).toBe('read 2');
  });
});
