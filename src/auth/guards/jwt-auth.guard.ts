import { ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { bearerToken } from '../../common/http/bearer-token';
import { RouteMetadataCache } from '../../common/http/route-metadata';
import { RateLimitGuard } from '../../common/rate-limit/rate-limit.guard';
import type { AuthenticatedUser } from '../../common/auth/authenticated-user';
import { IS_PUBLIC } from '../../common/auth/decorators/public.decorator';
import { JwtStrategy } from '../strategies/jwt.strategy';

/**
 * Global (APP_GUARD, first): every route needs a valid bearer token unless marked @Public(); the
 * token is verified and its user checked by JwtStrategy. A refused request is counted against its
 * client IP before its 401 or 403 (contract section 8: a flood of made-up tokens is a 429 too).
 */
@Injectable()
export class JwtAuthGuard extends AuthGuard('jwt') {
  private readonly isPublic: RouteMetadataCache<boolean>;

  constructor(
    reflector: Reflector,
    private readonly rateLimit: RateLimitGuard,
    private readonly strategy: JwtStrategy,
  ) {
    super();
    this.isPublic = new RouteMetadataCache(
      (targets) => reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, targets) === true,
    );
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic.get(context)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    try {
      // A token the strategy verified before skips passport's per-request context (its closures,
      // promise and request fields were most of the garbage of GET /auth/me in the bench profile).
      const verified = this.strategy.verifiedUser(bearerToken(request.headers.authorization));
      if (verified === undefined) return (await super.canActivate(context)) as boolean;
      request.user = await verified;
      return true;
    } catch (refused) {
      await this.rateLimit.countUnauthenticated(context);
      throw refused;
    }
  }

  override handleRequest<User = AuthenticatedUser>(error: unknown, user: User | false): User {
    if (error) throw error;
    if (!user) throw new UnauthorizedException('Invalid or expired token');
    return user;
  }
}
