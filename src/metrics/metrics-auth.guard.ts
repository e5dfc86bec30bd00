import { timingSafeEqual } from 'node:crypto';
import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import type { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { JwtAuthGuard } from '../auth/guards/jwt-auth.guard';
import { JwtKeyProvider } from '../auth/jwt-key.provider';
import { UserCheckService } from '../auth/user-check.service';
import type { AppConfig } from '../config/configuration';

/** Route metadata as the inner JWT guard sees it: no route is @Public() to it. */
const NO_PUBLIC_ROUTES = { getAllAndOverride: () => undefined } as unknown as Reflector;

const refused = () => new UnauthorizedException("An administrator's token or the metrics token is required");

/**
 * GET /metrics (contract section 9): an administrator's token, or `Bearer <METRICS_TOKEN>` when it
 * is set; anything else is 401. The route is @Public() so the global JWT guard lets the scraper's
 * token (not a JWT) through to here; every other token gets that guard's own check, run by an
 * instance of it that treats this route as protected.
 */
@Injectable()
export class MetricsAuthGuard implements CanActivate {
  private readonly scraperAuthorization: Buffer | undefined;
  private readonly tokenGuard: JwtAuthGuard;

  constructor(config: ConfigService<AppConfig, true>, key: JwtKeyProvider, userCheck: UserCheckService) {
    const token = config.getOrThrow('metrics', { infer: true }).token;
    this.scraperAuthorization = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
    this.tokenGuard = new JwtAuthGuard(NO_PUBLIC_ROUTES, key, userCheck);
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    if (this.isScraper(request.headers.authorization)) return true;
    // A disabled administrator too: "anything else is 401".
    const authenticated = await this.tokenGuard.canActivate(context).catch(() => false);
    if (!authenticated || !request.user?.isAdministrator) throw refused();
    return true;
  }

  private isScraper(header: string | undefined): boolean {
    const expected = this.scraperAuthorization;
    if (expected === undefined || header === undefined) return false;
    const given = Buffer.from(header);
    // Constant time: the comparison reveals nothing of the token but its length.
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
}
