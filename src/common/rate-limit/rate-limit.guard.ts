import { createHash } from 'node:crypto';
import { ExecutionContext, Injectable } from '@nestjs/common';
import {
  ThrottlerException,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerOptions,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { BoundedMap } from '../cache/bounded-map';
import { RouteMetadataCache } from '../http/route-metadata';
import { API_THROTTLER, LOGIN_RATE_LIMIT, LOGIN_THROTTLER, NO_RATE_LIMIT } from './rate-limit.decorators';

/** Who a token's requests count against: the token hashed, so the counter key never holds it. */
export function tokenTracker(token: string): string {
  return 'token:' + createHash('sha256').update(token).digest('base64url').slice(0, 32);
}

/**
 * The counter's key: the limit's name and who is counted, nothing about the route. The library's
 * default key also holds the controller and handler names, which made the per-token limit a
 * per-token-per-endpoint limit (100 a minute on each endpoint instead of 100 in all).
 */
export function rateLimitKey(throttler: string, tracker: string): string {
  return `pis:${throttler}:${tracker}`;
}

/** The one limit that applies to a route, from the module's options (RATE_LIMIT_* variables). */
interface RouteLimit {
  name: string;
  limit: number;
  ttl: number;
  byToken: boolean;
}

const BEARER = /^bearer\s+\S/i;
const MAX_CACHED_TRACKERS = 10_000;

/**
 * Two limits (spec, Limits): login by client IP (TRUST_PROXY decides whether X-Forwarded-For is
 * believed, through Fastify's trustProxy), everything else by token (by IP when there is none).
 * Routes marked @NoRateLimit() (health, docs) are never limited.
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
    const isLogin = this.reflector.getAllAndOverride<boolean | undefined>(LOGIN_RATE_LIMIT, targets) === true;
    return this.routeLimit(isLogin ? LOGIN_THROTTLER : API_THROTTLER, !isLogin);
  });
  private readonly trackers = new BoundedMap<string, string>(MAX_CACHED_TRACKERS);

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const route = this.routeLimits.get(context);
    if (!route) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest>();
    const tracker = (route.byToken ? this.tokenKey(request) : undefined) ?? `ip:${request.ip}`;
    const key = rateLimitKey(route.name, tracker);
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
    return true;
  }

  private routeLimit(name: string, byToken: boolean): RouteLimit {
    const options = this.throttlers.find((t: ThrottlerOptions) => t.name === name);
    const limit = options?.limit;
    const ttl = options?.ttl;
    if (typeof limit !== 'number' || typeof ttl !== 'number')
      throw new Error(`the ${name} rate limit needs a numeric limit and ttl`);
    return { name, limit, ttl, byToken };
  }

  private tokenKey(request: FastifyRequest): string | undefined {
    const header = request.headers.authorization;
    if (typeof header !== 'string' || !BEARER.test(header)) return undefined;
    const token = header.slice(7).trim();
    let tracker = this.trackers.get(token);
    if (tracker === undefined) this.trackers.set(token, (tracker = tokenTracker(token)));
    return tracker;
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
