import { createHash } from 'node:crypto';
import { Injectable } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { InjectThrottlerStorage, type ThrottlerStorage } from '@nestjs/throttler';
import { RetryLaterException } from '../common/errors/retry-later.exception';
import { rateLimitKey } from '../common/rate-limit/rate-limit-key';
import type { AppConfig } from '../config/configuration';

const MINUTE_MS = 60_000;

export type PartnerTool = 'recover' | 'test' | 'resend';

/**
 * Contract section 8, Partner-tool budgets: uses of each tool per subscription and minute, besides
 * the token limit, in the rate limits' storage (Redis, shared by every instance, when REDIS_URL is
 * set; memory otherwise). A route spends one once the request has passed validation and permission
 * checks, so a 404 for another tenant's subscription neither uses nor reveals its budget.
 */
@Injectable()
export class PartnerToolBudgets {
  private readonly perMinute: Record<PartnerTool, number>;

  constructor(
    @InjectThrottlerStorage() private readonly storage: ThrottlerStorage,
    config: ConfigService<AppConfig, true>,
  ) {
    const limits = config.getOrThrow('rateLimit', { infer: true });
    this.perMinute = {
      recover: limits.recoverPerMinute,
      test: limits.testEventsPerMinute,
      resend: limits.resendPerMinute,
    };
  }

  /** One use of `tool` for the subscription; past its budget, 429 with Retry-After (the window's end). */
  async spend(tool: PartnerTool, subscription: { id: number; tenant: string }): Promise<void> {
    const limit = this.perMinute[tool];
    const name = `partner-tool-${tool}`;
    // Counted past the limit too, never blocked by the storage itself: the window's end is the wait.
    const hit = await this.storage.increment(
      rateLimitKey(name, subscriptionTracker(subscription)),
      MINUTE_MS,
      Number.MAX_SAFE_INTEGER,
      0,
      name,
    );
    if (hit.totalHits > limit) {
      const wait = Math.max(1, hit.timeToExpire);
      throw new RetryLaterException(
        `At most ${limit} ${tool} a minute for this subscription: retry after ${wait} s`,
        wait,
      );
    }
  }
}

/** The subscription's id with its tenant: ids start again in another database that shares the Redis. */
function subscriptionTracker({ id, tenant }: { id: number; tenant: string }): string {
  return createHash('sha256').update(`${tenant}\0${id}`).digest('base64url').slice(0, 32);
}
