import { OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { LRUCache } from 'lru-cache';

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

/** A counter as it stands (CountingStorage.peek). */
export interface CounterState {
  hits: number;
  msToExpire: number;
}

/** Rate-limit storage that can also read a counter without counting (the login-guessing limits). */
export interface CountingStorage extends ThrottlerStorage {
  peek(key: string, throttlerName: string): Promise<CounterState>;
}

const seconds = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** Counters kept in memory at once; past it the least recently used are dropped (contract section 8). */
export const MAX_COUNTERS = 100_000;

/**
 * In-memory rate-limit counters: one fixed window per key, constant time per request. The
 * library's default storage keeps every hit's timestamp for a minute and copies that list on each
 * request, which the benchmark found to be most of a request's CPU once a token is busy. Redis
 * (REDIS_URL) uses the same fixed-window semantics.
 */
export class FixedWindowThrottlerStorage implements CountingStorage, OnApplicationShutdown {
  private readonly windows: LRUCache<string, Window>;

  constructor(maxCounters = MAX_COUNTERS) {
    this.windows = new LRUCache({ max: maxCounters });
  }

  async increment(key: string, ttl: number, limit: number, blockDuration: number): Promise<StorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window) {
      window = { hits: 0, resetAt: now + ttl, blockedUntil: 0 };
      this.windows.set(key, window);
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

  /** The key's hits in its current window, without counting one (0 when it has none). */
  async peek(key: string): Promise<CounterState> {
    const now = Date.now();
    const window = this.windows.peek(key);
    if (!window || window.resetAt <= now) return { hits: 0, msToExpire: 0 };
    return { hits: window.hits, msToExpire: window.resetAt - now };
  }

  onApplicationShutdown(): void {
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
}
