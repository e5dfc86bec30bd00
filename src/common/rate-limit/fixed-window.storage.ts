import { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';

interface Window {
  hits: number;
  resetAt: number;
  blockedUntil: number;
}

interface StorageRecord {
  totalHits: number;
  timeToExpire: number;
  isBlocked: boolean;
  timeToBlockExpire: number;
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/**
 * In-memory rate-limit counters: one fixed window per key, constant time per request. The
 * library's default storage keeps every hit's timestamp for a minute and copies that list on each
 * request, which the benchmark found to be most of a request's CPU once a token is busy. Redis
 * (REDIS_URL) uses the same fixed-window semantics.
 */
export class FixedWindowThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private sweeper: NodeJS.Timeout | undefined;

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<StorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window) {
      window = { hits: 0, resetAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, window);
      this.sweepEvery(ttl);
    } else if (window.resetAt <= now) {
      window.hits = 0;
      window.resetAt = now + ttl;
    }
    if (window.blockedUntil > now) {
      return this.record(window, now, true);
    }
    window.hits++;
    if (window.hits > limit) {
      window.blockedUntil = now + blockDuration;
      return this.record(window, now, true);
    }
    return this.record(window, now, false);
  }

  onApplicationShutdown(): void {
    if (this.sweeper) clearInterval(this.sweeper);
    this.windows.clear();
  }

  private record(window: Window, now: number, isBlocked: boolean): StorageRecord {
    return {
      totalHits: window.hits,
      timeToExpire: seconds(window.resetAt - now),
      isBlocked,
      timeToBlockExpire: isBlocked ? seconds(window.blockedUntil - now) : 0,
    };
  }

  /** Drops windows that ended and are not blocking, so idle keys don't accumulate. */
  private sweepEvery(ttl: number): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => {
      const now = Date.now();
      for (const [key, window] of this.windows) {
        if (window.resetAt <= now && window.blockedUntil <= now) this.windows.delete(key);
      }
    }, ttl);
    this.sweeper.unref();
  }
}
