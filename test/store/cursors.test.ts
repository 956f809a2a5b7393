import { CursorRegistry } from '../../src/store/cursors';

describe('CursorRegistry', () => {
  const docs = Array.from({ length: 10 }, (_, i) => ({ i }));

  it('closes exhausted cursors and opens none for a result that fits one batch', () => {
    const reg = new CursorRegistry();
    expect(reg.open('d.c', docs, { batchSize: 10 }).id.isZero()).toBe(true);
    const first = reg.open('d.c', docs, { batchSize: 4 });
    expect(reg.openCount).toBe(1);
    expect(reg.getMore(first.id.toBigInt(), 'd.c', 4).docs).toHaveLength(4);
    const last = reg.getMore(first.id.toBigInt(), 'd.c');
    expect(last.docs.map((d) => d.i)).toEqual([8, 9]);
    expect(last.id.isZero()).toBe(true);
    expect(reg.openCount).toBe(0);
    reg.close();
  });

  it('reaps idle cursors after the timeout but keeps noCursorTimeout ones', () => {
    const reg = new CursorRegistry(1000);
    reg.open('d.c', docs, { batchSize: 1 });
    reg.open('d.c', docs, { batchSize: 1, noTimeout: true });
    expect(reg.reap(Date.now() + 500)).toBe(0);
    expect(reg.reap(Date.now() + 2000)).toBe(1);
    expect(reg.openCount).toBe(1);
    reg.close();
  });

  it('takes a new timeout (setParameter cursorTimeoutMillis) for the cursors already open', () => {
    const reg = new CursorRegistry(600_000);
    reg.open('d.c', docs, { batchSize: 1 });
    expect(reg.reap(Date.now() + 2000)).toBe(0);
    reg.timeoutMs = 1000;
    expect(reg.timeoutMs).toBe(1000);
    expect(reg.reap(Date.now() + 2000)).toBe(1);
    reg.close();
  });

  it('refuses a getMore on another namespace', () => {
    const reg = new CursorRegistry();
    const first = reg.open('d.c', docs, { batchSize: 1 });
    expect(() => reg.getMore(first.id.toBigInt(), 'd.other')).toThrow(/different namespace/);
    reg.close();
  });
});
