import { createHash } from 'node:crypto';
import { ExecutionContext, Injectable } from '@nestjs/common';
import {
  ThrottlerException,
  ThrottlerGuard,
  ThrottlerLimitDetail,
  ThrottlerRequest,
} from '@nestjs/throttler';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { API_THROTTLER, LOGIN_RATE_LIMIT, LOGIN_THROTTLER } from './rate-limit.decorators';

/** Who a token's requests count against: the token hashed, so the counter key never holds it. */
export function tokenTracker(token: string): string {
  return 'token:' + createHash('sha256').update(token).digest('base64url').slice(0, 32);
}

function tokenKey(req: FastifyRequest): string | undefined {
  const header = req.headers.authorization;
  if (typeof header !== 'string' || !/^bearer\s+\S/i.test(header)) return undefined;
  return tokenTracker(header.slice(7).trim());
}

/**
 * The counter's key: the limit's name and who is counted, nothing about the route. The library's
 * default key also holds the controller and handler names, which made the per-token limit a
 * per-token-per-endpoint limit (100 a minute on each endpoint instead of 100 in all).
 */
export function rateLimitKey(throttler: string, tracker: string): string {
  return `pis:${throttler}:${tracker}`;
}

/**
 * Two limits (spec, Limits): login by client IP (TRUST_PROXY decides whether X-Forwarded-For is
 * believed, through Fastify's trustProxy), everything else by token (by IP when there is none).
 * Routes marked @SkipThrottle() (health, docs) are never limited.
 */
@Injectable()
export class RateLimitGuard extends ThrottlerGuard {
  protected override async handleRequest(props: ThrottlerRequest): Promise<boolean> {
    const isLogin = this.reflector.getAllAndOverride<boolean>(LOGIN_RATE_LIMIT, [
      props.context.getHandler(),
      props.context.getClass(),
    ]);
    const name = props.throttler.name;
    if ((name === LOGIN_THROTTLER && !isLogin) || (name === API_THROTTLER && isLogin)) return true;
    const getTracker = async (req: Record<string, any>) => {
      const request = req as FastifyRequest;
      return (isLogin ? undefined : tokenKey(request)) ?? `ip:${request.ip}`;
    };
    return super.handleRequest({
      ...props,
      getTracker,
      generateKey: (_context, tracker, throttler) => rateLimitKey(throttler, tracker),
    });
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
