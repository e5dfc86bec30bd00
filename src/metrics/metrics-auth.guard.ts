import { timingSafeEqual } from 'node:crypto';
import { ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { AuthGuard } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import type { AppConfig } from '../config/configuration';

const refused = () => new UnauthorizedException("An administrator's token or the metrics token is required");

/**
 * GET /metrics (contract section 9): an administrator's token, or `Bearer <METRICS_TOKEN>` when it
 * is set; anything else is 401. The route is @Public() so the global JWT guard lets the scraper's
 * token (not a JWT) through to here; every other token goes through the same passport strategy.
 */
@Injectable()
export class MetricsAuthGuard extends AuthGuard('jwt') {
  private readonly scraperAuthorization: Buffer | undefined;

  constructor(config: ConfigService<AppConfig, true>) {
    super();
    const token = config.getOrThrow('metrics', { infer: true }).token;
    this.scraperAuthorization = token === undefined ? undefined : Buffer.from(`Bearer ${token}`);
  }

  override async canActivate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    if (this.isScraper(request.headers.authorization)) return true;
    // A disabled administrator too: "anything else is 401".
    const authenticated = await Promise.resolve(super.canActivate(context)).catch(() => false);
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
