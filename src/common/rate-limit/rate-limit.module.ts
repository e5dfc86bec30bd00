import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import type { AppConfig } from '../../config/configuration';
import { FixedWindowThrottlerStorage } from './fixed-window.storage';
import { API_THROTTLER, LOGIN_THROTTLER } from './rate-limit.decorators';
import { LoginAttemptsService } from './login-attempts.service';
import { RateLimitGuard } from './rate-limit.guard';
import { RedisOrMemoryThrottlerStorage } from './redis-or-memory.storage';

const MINUTE_MS = 60_000;

/**
 * Counters in Redis when REDIS_URL is set (shared by every instance; in memory while it is down),
 * in memory otherwise.
 */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<AppConfig, true>) => {
        const limits = config.getOrThrow('rateLimit', { infer: true });
        const redisUrl = config.getOrThrow('redis', { infer: true }).url;
        return {
          throttlers: [
            { name: API_THROTTLER, ttl: MINUTE_MS, limit: limits.apiPerMinute },
            { name: LOGIN_THROTTLER, ttl: MINUTE_MS, limit: limits.loginPerMinute },
          ],
          // The Redis storage owns its connection, closes it on shutdown, and falls back to memory.
          storage: redisUrl ? new RedisOrMemoryThrottlerStorage(redisUrl) : new FixedWindowThrottlerStorage(),
          // The contract's only rate-limit header is Retry-After on a 429 (set by the guard).
          setHeaders: false,
        };
      },
    }),
  ],
  // The guard is also the JWT guard's: a refused token is counted against the client (AppModule).
  // The login-guessing counters, recorded by the login (AuthService), are in the same storage.
  providers: [RateLimitGuard, LoginAttemptsService],
  exports: [ThrottlerModule, RateLimitGuard, LoginAttemptsService],
})
export class RateLimitModule {}
