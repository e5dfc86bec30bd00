import { FixedWindowThrottlerStorage } from './fixed-window.storage';
import { LoginAttemptsService } from './login-attempts.service';

describe('LoginAttemptsService', () => {
  let storage: FixedWindowThrottlerStorage;
  let attempts: LoginAttemptsService;
  beforeEach(() => {
    jest.useFakeTimers({ now: new Date('2026-11-25T10:00:00.000Z') });
    storage = new FixedWindowThrottlerStorage();
    attempts = new LoginAttemptsService(storage);
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('blocks an e-mail from one client after 10 failures until its 15-minute window ends', async () => {
    for (let i = 0; i < 9; i++) await attempts.recordFailure('a@example.com', '192.0.2.1');
    await expect(attempts.blockedFor('a@example.com', '192.0.2.1')).resolves.toBe(0);
    jest.advanceTimersByTime(60_000);
    await attempts.recordFailure('A@Example.com', '192.0.2.1');
    await expect(attempts.blockedFor('a@example.com', '192.0.2.1')).resolves.toBe(14 * 60_000);
    await expect(attempts.blockedFor('a@example.com', '192.0.2.2')).resolves.toBe(0);
    await expect(attempts.blockedFor('b@example.com', '192.0.2.1')).resolves.toBe(0);
    jest.advanceTimersByTime(14 * 60_000);
    await expect(attempts.blockedFor('a@example.com', '192.0.2.1')).resolves.toBe(0);
  });

  it('blocks an e-mail from every client after 100 failures in an hour', async () => {
    for (let i = 0; i < 100; i++) await attempts.recordFailure('a@example.com', `198.51.100.${i}`);
    await expect(attempts.blockedFor('a@example.com', '203.0.113.9')).resolves.toBe(60 * 60_000);
    jest.advanceTimersByTime(60 * 60_000);
    await expect(attempts.blockedFor('a@example.com', '203.0.113.9')).resolves.toBe(0);
  });

  it('counts an IPv6 client by its /64', async () => {
    for (let i = 0; i < 10; i++) await attempts.recordFailure('a@example.com', `2001:db8::${i + 1}`);
    await expect(attempts.blockedFor('a@example.com', '2001:db8::ffff')).resolves.toBeGreaterThan(0);
    await expect(attempts.blockedFor('a@example.com', '2001:db8:0:1::1')).resolves.toBe(0);
  });
});
