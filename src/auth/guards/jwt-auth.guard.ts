import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { FastifyRequest } from 'fastify';
import { ExtractJwt, Strategy as JwtStrategy } from 'passport-jwt';
import { BoundedMap } from '../../common/cache/bounded-map';
import { RouteMetadataCache } from '../../common/http/route-metadata';
import type { AuthenticatedUser, TokenClaims } from '../authenticated-user';
import { IS_PUBLIC } from '../decorators/public.decorator';
import { JwtKeyProvider } from '../jwt-key.provider';
import { UserCheckService } from '../user-check.service';

const MAX_ID = 2_147_483_647;
const MAX_CACHED_TOKENS = 10_000;
const BEARER = /^Bearer\s+(\S+)\s*$/i;
const invalid = () => new UnauthorizedException('Invalid or expired token');

type Claims = TokenClaims & { exp?: unknown };

/** The callbacks passport-jwt calls on a strategy object (passport-strategy's contract). */
interface StrategyRun {
  success(claims: Claims): void;
  fail(): void;
  error(error: unknown): void;
  authenticate(request: unknown): void;
}

/**
 * Global (APP_GUARD): every route needs a valid bearer token unless marked @Public().
 *
 * The token is extracted and verified by passport-jwt, through a strategy instance this guard owns
 * rather than one registered in Passport's process-wide registry: with the registry, a second
 * application in the same process (tests running two instances) replaced the first one's
 * strategy, secret and database with its own.
 */
@Injectable()
export class JwtAuthGuard implements CanActivate {
  private readonly strategy: JwtStrategy;
  /**
   * Tokens already verified, by their exact text (signature included), so a tampered token never
   * matches; expiry is checked again on every use. Saves an HMAC and a JSON parse per request.
   */
  private readonly verified = new BoundedMap<string, Claims>(MAX_CACHED_TOKENS);
  private readonly isPublic: RouteMetadataCache<boolean>;

  constructor(
    reflector: Reflector,
    key: JwtKeyProvider,
    private readonly userCheck: UserCheckService,
  ) {
    this.isPublic = new RouteMetadataCache(
      (targets) => reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, targets) === true,
    );
    this.strategy = new JwtStrategy(
      {
        jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
        // A KeyObject: given a string, the token library would parse it as a PEM key on every verify.
        secretOrKey: key.key as unknown as Buffer,
        // HS256 only: no `alg: none`, no algorithm confusion. Expiry is checked by the library.
        algorithms: ['HS256'],
      },
      (claims: Claims, done: (error: unknown, user?: Claims) => void) => done(null, claims),
    );
  }

  async canActivate(context: ExecutionContext): Promise<boolean> {
    if (this.isPublic.get(context)) return true;
    const request = context.switchToHttp().getRequest<FastifyRequest & { user?: AuthenticatedUser }>();
    const claims = await this.claimsOf(request);
    // Our tokens always expire (contract section 3) and name a user by its integer id.
    const id = Number(claims?.sub);
    if (!claims || typeof claims.exp !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_ID)
      throw invalid();
    request.user = await this.userCheck.check(id);
    return true;
  }

  private async claimsOf(request: FastifyRequest): Promise<Claims | undefined> {
    const header = request.headers.authorization;
    const token = typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
    const cached = token === undefined ? undefined : this.verified.get(token);
    if (cached) {
      if (typeof cached.exp === 'number' && cached.exp * 1000 > Date.now()) return cached;
      this.verified.delete(token!);
      return undefined;
    }
    const claims = await this.verify(request);
    if (claims && token) this.verified.set(token, claims);
    return claims;
  }

  private verify(request: FastifyRequest): Promise<Claims | undefined> {
    return new Promise((resolve) => {
      const run = Object.create(this.strategy) as StrategyRun;
      run.success = (claims) => resolve(claims);
      run.fail = () => resolve(undefined);
      run.error = () => resolve(undefined);
      run.authenticate(request);
    });
  }
}
