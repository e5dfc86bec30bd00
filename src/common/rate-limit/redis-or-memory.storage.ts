import { Logger, OnApplicationShutdown } from '@nestjs/common';
import type { ThrottlerStorage } from '@nestjs/throttler';
import { ThrottlerStorageRedisService } from '@nest-lab/throttler-storage-redis';
import Redis from 'ioredis';
import { CounterState, CountingStorage, FixedWindowThrottlerStorage } from './fixed-window.storage';

type StorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/** After a failed command, how long requests are counted in memory before Redis is tried again. */
const PAUSE_AFTER_FAILURE_MS = 5_000;
/** A Redis that accepts connections but does not answer holds a request back at most this long. */
const COMMAND_TIMEOUT_MS = 500;
const CONNECT_TIMEOUT_MS = 2_000;

/** Where the Redis is, for log lines: host and port only, never the URL (it may hold a password). */
function redisAddress(url: string): string {
  const { hostname, port } = new URL(url);
  return `${hostname}:${port || 6379}`;
}

/**
 * Rate-limit counters in Redis (REDIS_URL), shared by every instance; while Redis is unreachable,
 * this instance's own in-memory counters (fail open per instance: the contract wants a 429 or the
 * answer, never a 500), and Redis again once it is back.
 *
 * Redis errors go to the application's JSON log, once per outage: without an 'error' listener
 * ioredis prints a multi-line stack to stderr on every reconnection attempt. No command waits for a
 * connection (no offline queue, no retries), so a dead Redis never holds a request back.
 */
export class RedisOrMemoryThrottlerStorage implements CountingStorage, OnApplicationShutdown {
  private readonly logger = new Logger('RateLimit');
  private readonly client: Redis;
  private readonly redis: ThrottlerStorageRedisService;
  private readonly memory = new FixedWindowThrottlerStorage();
  private readonly address: string;
  /** True from the first failure until Redis answers again: what the log said last. */
  private inFallback = false;
  private pausedUntil = 0;
  private shuttingDown = false;

  constructor(url: string) {
    this.address = redisAddress(url);
    this.client = new Redis(url, {
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: COMMAND_TIMEOUT_MS,
      connectTimeout: CONNECT_TIMEOUT_MS,
    });
    this.client.on('error', (error: Error) => this.fallBack(error.message));
    // A Redis that goes away closes the connection before the first reconnection attempt fails.
    this.client.on('close', () => {
      if (!this.shuttingDown) this.fallBack('connection lost');
    });
    this.client.on('ready', () => {
      this.pausedUntil = 0;
      this.recovered();
    });
    // Given a client, the library leaves connecting and disconnecting to us.
    this.redis = new ThrottlerStorageRedisService(this.client);
  }

  async increment(
    key: string,
    ttl: number,
    limit: number,
    blockDuration: number,
    throttlerName: string,
  ): Promise<StorageRecord> {
    if (this.client.status === 'ready' && Date.now() >= this.pausedUntil) {
      try {
        const record = await this.redis.increment(key, ttl, limit, blockDuration, throttlerName);
        this.recovered();
        return record;
      } catch (error) {
        this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
        this.fallBack((error as Error).message);
      }
    }
    return this.memory.increment(key, ttl, limit, blockDuration);
  }

  /** The key's hits without counting one; the hit key is the library's (`{key:name}:hits`). */
  async peek(key: string, throttlerName: string): Promise<CounterState> {
    if (this.client.status === 'ready' && Date.now() >= this.pausedUntil) {
      const hitKey = `{${key}:${throttlerName}}:hits`;
      try {
        const [hits, ttl] = await Promise.all([this.client.get(hitKey), this.client.pttl(hitKey)]);
        this.recovered();
        return ttl > 0 ? { hits: Number(hits ?? 0), msToExpire: ttl } : { hits: 0, msToExpire: 0 };
      } catch (error) {
        this.pausedUntil = Date.now() + PAUSE_AFTER_FAILURE_MS;
        this.fallBack((error as Error).message);
      }
    }
    return this.memory.peek(key);
  }

  onApplicationShutdown(): void {
    this.shuttingDown = true;
    this.client.disconnect();
    this.memory.onApplicationShutdown();
  }

  private fallBack(reason: string): void {
    if (this.inFallback) return;
    this.inFallback = true;
    this.logger.warn(
      `Redis at ${this.address} is unavailable (${reason}): rate limits are counted in this ` +
        `instance's memory until it is back`,
    );
  }

  private recovered(): void {
    if (!this.inFallback) return;
    this.inFallback = false;
    this.logger.log(`Redis at ${this.address} is back: rate limits are counted in Redis again`);
  }
}
