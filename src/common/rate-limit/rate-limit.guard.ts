import { createHash } from 'node:crypto';
import { ExecutionContext, Inject, Injectable } from '@nestjs/common';
import {
  ThrottlerException,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerOptions,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { bearerToken } from '../http/bearer-token';
import { IS_PUBLIC } from '../http/public-route';
import { RouteMetadataCache } from '../http/route-metadata';
import { clientKey } from './client-address';
import { LoginAttemptsService } from './login-attempts.service';
import { rateLimitKey } from './rate-limit-key';
import { API_THROTTLER, LOGIN_RATE_LIMIT, LOGIN_THROTTLER, NO_RATE_LIMIT } from './rate-limit.decorators';

/**
 * Who a verified token's requests count against: its signature (contract section 8: the verified
 * token, never the header's text), hashed so the counter key never holds a usable part of it.
 */
export function tokenTracker(token: string): string {
  const signature = token.slice(token.lastIndexOf('.') + 1);
  return 'token:' + createHash('sha256').update(signature).digest('base64url').slice(0, 32);
}

export { rateLimitKey } from './rate-limit-key';

const MAX_CACHED_TRACKERS = 10_000;

const counter = (throttler: string, tracker: string): Counted => ({
  throttler,
  tracker,
  key: rateLimitKey(throttler, tracker),
});

/** The one limit that applies to a route, from the module's options (RATE_LIMIT_* variables). */
interface RouteLimit {
  name: string;
  limit: number;
  ttl: number;
  byToken: boolean;
}

/** Who a request counts against, and the counter's key (rateLimitKey of the limit and tracker). */
interface Counted {
  throttler: string;
  tracker: string;
  key: string;
}

/** What the JWT guard, which runs before this one, leaves on a request it authenticated. */
type CountedRequest = FastifyRequest & { user?: unknown };

/**
 * Two limits (spec, Limits): login by client IP (TRUST_PROXY decides whether X-Forwarded-For is
 * believed, through Fastify's trustProxy), every route that needs a token by verified token. Other
 * public routes and routes marked @NoRateLimit() (health, docs) are never limited.
 *
 * Global, after the JWT guard (contract section 8): that guard verifies the token once; a request
 * it refuses (no token, a bad or made-up one) is counted here against its client IP through
 * countUnauthenticated() before its 401, and one it accepts is counted in canActivate against the
 * token's signature. An IPv6 client counts by its /64.
 *
 * The library's guard counts against the storage it was given (memory or Redis), but its
 * canActivate looks up six decorator values per named limit on every request and hashes the
 * tracker each time; here the route's limit is read once per route and a token's hash is kept.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  /** Computed on a route's first request, after onModuleInit has set `throttlers`. */
  private readonly routeLimits = new RouteMetadataCache<RouteLimit | undefined>((targets) => {
    if (this.reflector.getAllAndOverride<boolean | undefined>(NO_RATE_LIMIT, targets)) return undefined;
    if (this.reflector.getAllAndOverride<boolean | undefined>(LOGIN_RATE_LIMIT, targets))
      return this.routeLimit(LOGIN_THROTTLER, false);
    // Contract section 8: public routes other than the login are not limited.
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, targets)) return undefined;
    return this.routeLimit(API_THROTTLER, true);
  });
  @Inject(LoginAttemptsService) private readonly loginAttempts: LoginAttemptsService;
  /**
   * Verified tokens' counters, by signature: one hash and one key string per token, not per
   * request (a key built anew is hashed anew by every Map it is looked up in).
   */
  private readonly tokenCounters = new LRUCache<string, Counted>({ max: MAX_CACHED_TRACKERS });

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.routeLimits.get(context);
    if (!route) return true;
    const request = context.switchToHttp().getRequest<CountedRequest>();
    // Only a request the JWT guard let through has a user: its token is then well-formed and verified.
    const token = route.byToken && request.user ? bearerToken(request.headers.authorization) : undefined;
    await this.count(
      context,
      route,
      token === undefined ? this.clientCounted(route, request) : this.tokenCounted(route, token),
    );
    if (!route.byToken) await this.refuseGuessing(context, request);
    return true;
  }

  /** A request to a route that needs a token, refused by the JWT guard: counted against its client. */
  async countUnauthenticated(context: ExecutionContext): Promise<void> {
    const route = this.routeLimits.get(context);
    if (!route) return;
    await this.count(
      context,
      route,
      this.clientCounted(route, context.switchToHttp().getRequest<FastifyRequest>()),
    );
  }

  private async count(
    context: ExecutionContext,
    route: RouteLimit,
    { tracker, key }: Counted,
  ): Promise<void> {
    const hit = await this.storageService.increment(key, route.ttl, route.limit, route.ttl, route.name);
    if (hit.isBlocked) {
      await this.throwThrottlingException(context, {
        ...hit,
        limit: route.limit,
        ttl: route.ttl,
        key,
        tracker,
      });
    }
  }

  /** Contract section 8, Password guessing: too many failed logins for this e-mail. */
  private async refuseGuessing(context: ExecutionContext, request: FastifyRequest): Promise<void> {
    const email = (request.body as { email?: unknown } | undefined)?.email;
    if (typeof email !== 'string') return;
    const wait = await this.loginAttempts.blockedFor(email, request.ip);
    if (wait > 0) {
      await this.throwThrottlingException(context, {
        totalHits: 0,
        timeToExpire: wait / 1000,
        isBlocked: true,
        timeToBlockExpire: wait / 1000,
        limit: 0,
        ttl: 0,
        key: '',
        tracker: '',
      });
    }
  }

  private routeLimit(name: string, byToken: boolean): RouteLimit {
    const options = this.throttlers.find((t: ThrottlerOptions) => t.name === name);
    const limit = options?.limit;
    const ttl = options?.ttl;
    if (typeof limit !== 'number' || typeof ttl !== 'number')
      throw new Error(`the ${name} rate limit needs a numeric limit and ttl`);
    return { name, limit, ttl, byToken };
  }

  private tokenCounted(route: RouteLimit, token: string): Counted {
    const signature = token.slice(token.lastIndexOf('.') + 1);
    let counted = this.tokenCounters.get(signature);
    if (counted === undefined || counted.throttler !== route.name) {
      counted = counter(route.name, tokenTracker(token));
      this.tokenCounters.set(signature, counted);
    }
    return counted;
  }

  private clientCounted(route: RouteLimit, request: FastifyRequest): Counted {
    return counter(route.name, `ip:${clientKey(request.ip)}`);
  }

  protected override async throwThrottlingException(
    context: ExecutionContext,
    detail: ThrottlerLimitDetail,
  ): Promise<void> {
    const reply = context.switchToHttp().getResponse<FastifyReply>();
    const seconds = Math.max(1, Math.ceil(detail.timeToBlockExpire));
    void reply.header('Retry-After', String(seconds));
    throw new ThrottlerException(`Rate limit exceeded: retry after ${seconds} s`);
  }
}
