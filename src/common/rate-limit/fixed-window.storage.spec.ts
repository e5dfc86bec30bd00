import { FixedWindowThrottlerStorage } from './fixed-window.storage';

describe('FixedWindowThrottlerStorage', () => {
  let storage: FixedWindowThrottlerStorage;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-21T10:00:00.000Z') });
    storage = new FixedWindowThrottlerStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('counts up to the limit, then blocks for the block duration', async () => {
    for (let i = 1; i <= 3; i++) {
      await expect(storage.increment('k', 60_000, 3, 60_000)).resolves.toMatchObject({
        totalHits: i,
        isBlocked: false,
      });
    }
    await expect(storage.increment('k', 60_000, 3, 60_000)).resolves.toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 60,
    });
    jest.advanceTimersByTime(59_000);
    await expect(storage.increment('k', 60_000, 3, 60_000)).resolves.toMatchObject({
      isBlocked: true,
      timeToBlockExpire: 1,
    });
  });

  it('starts a new window after the ttl, once the block is over', async () => {
    for (let i = 0; i < 4; i++) await storage.increment('k', 60_000, 3, 60_000);
    jest.advanceTimersByTime(60_001);
    await expect(storage.increment('k', 60_000, 3, 60_000)).resolves.toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });

  it('keeps keys apart', async () => {
    for (let i = 0; i < 4; i++) await storage.increment('a', 60_000, 3, 60_000);
    await expect(storage.increment('b', 60_000, 3, 60_000)).resolves.toMatchObject({
      totalHits: 1,
      isBlocked: false,
    });
  });

  it('keeps at most its maximum of counters, dropping the least recently used first', async () => {
    const small = new FixedWindowThrottlerStorage(2);
    for (let i = 0; i < 4; i++) await small.increment('a', 60_000, 3, 60_000);
    await small.increment('b', 60_000, 3, 60_000);
    await small.increment('a', 60_000, 3, 60_000);
    await small.increment('c', 60_000, 3, 60_000);
    // 'b' was dropped, 'a' (blocked, used last but one) was kept.
    await expect(small.peek('b')).resolves.toEqual({ hits: 0, msToExpire: 0 });
    await expect(small.increment('a', 60_000, 3, 60_000)).resolves.toMatchObject({ isBlocked: true });
  });

  it('reads a counter without counting, and reports nothing once its window ended', async () => {
    await storage.increment('k', 60_000, 3, 60_000);
    await storage.increment('k', 60_000, 3, 60_000);
    jest.advanceTimersByTime(10_000);
    await expect(storage.peek('k')).resolves.toEqual({ hits: 2, msToExpire: 50_000 });
    await expect(storage.peek('k')).resolves.toEqual({ hits: 2, msToExpire: 50_000 });
    jest.advanceTimersByTime(50_000);
    await expect(storage.peek('k')).resolves.toEqual({ hits: 0, msToExpire: 0 });
  });
});
