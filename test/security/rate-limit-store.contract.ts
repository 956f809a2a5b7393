import type { RateLimitStore } from '../../src/security/rate-limit/rate-limit-store';

/** What every RateLimitStore does, whatever keeps the counts. */
export function storeContract(
  name: string,
  make: () => Promise<{ store: RateLimitStore; done: () => Promise<void> }>,
  describeIt: jest.Describe = describe,
): void {
  describeIt(name, () => {
    let store: RateLimitStore;
    let done: () => Promise<void>;
    beforeAll(async () => {
      ({ store, done } = await make());
    });
    afterAll(async () => {
      await done();
    });

    it('counts per key within a window and reports the time left', async () => {
      const a = `a-${Math.random()}`;
      const first = await store.hit(a, 60_000);
      expect(first.count).toBe(1);
      expect(first.resetInMs).toBeGreaterThan(55_000);
      expect(first.resetInMs).toBeLessThanOrEqual(60_000);
      expect((await store.hit(a, 60_000)).count).toBe(2);
      expect((await store.hit(`b-${Math.random()}`, 60_000)).count).toBe(1);
    });

    it('starts over once the window has passed', async () => {
      const key = `w-${Math.random()}`;
      await store.hit(key, 150);
      await store.hit(key, 150);
      await new Promise((r) => setTimeout(r, 300));
      expect((await store.hit(key, 150)).count).toBe(1);
    });

    it('counts concurrent hits exactly', async () => {
      const key = `c-${Math.random()}`;
      const counts = await Promise.all(Array.from({ length: 50 }, () => store.hit(key, 60_000)));
      expect(counts.map((c) => c.count).sort((x, y) => x - y)).toEqual(
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
    });
  });
}
