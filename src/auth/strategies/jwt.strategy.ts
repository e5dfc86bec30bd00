import { Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Strategy } from 'passport-jwt';
import type { AuthenticatedUser, TokenClaims } from '../authenticated-user';
import { bearerToken } from '../../common/http/bearer-token';
import { JwtKeyProvider } from '../jwt-key.provider';
import { UserCheckService } from '../user-check.service';

const MAX_ID = 2_147_483_647;
const MAX_CACHED_TOKENS = 10_000;

type Claims = Partial<TokenClaims> & { exp?: unknown };
const invalid = () => new UnauthorizedException('Invalid or expired token');

/**
 * Verifies the bearer token (HS256, signature and expiry, by passport-jwt) and checks its user
 * (UserCheckService). Passport keeps strategies in one process-wide registry: one application per
 * process (tests that need two with different secrets run the second as a child process).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  /**
   * Tokens already verified, by their exact text (signature included, so a tampered token never
   * matches), until they expire: saves an HMAC and a JSON parse on most requests (bench api-me).
   */
  private readonly verified = new LRUCache<string, Claims>({ max: MAX_CACHED_TOKENS });

  constructor(
    key: JwtKeyProvider,
    private readonly userCheck: UserCheckService,
  ) {
    super({
      jwtFromRequest: (request: FastifyRequest) => bearerToken(request.headers.authorization) ?? null,
      // A KeyObject: given a string, the token library would parse it as a PEM key on every verify.
      secretOrKey: key.key as unknown as Buffer,
      // HS256 only: no `alg: none`, no algorithm confusion.
      algorithms: ['HS256'],
      passReqToCallback: true,
    });
  }

  /** passport-strategy's entry point: a token verified before goes straight to the user check. */
  override authenticate(request: { headers: IncomingHttpHeaders }, options?: object): void {
    const token = bearerToken(request.headers.authorization);
    const claims = token === undefined ? undefined : this.verified.get(token);
    if (!claims) return super.authenticate(request as never, options);
    this.checkUser(claims).then(
      (user) => this.success(user),
      (error: unknown) => this.error(error as Error),
    );
  }

  /** Called by passport-jwt once the token's signature and expiry are verified. */
  async validate(request: FastifyRequest, claims: Claims): Promise<AuthenticatedUser> {
    const user = await this.checkUser(claims);
    const token = bearerToken(request.headers.authorization)!;
    this.verified.set(token, claims, { ttl: Math.max(1, (claims.exp as number) * 1000 - Date.now()) });
    return user;
  }

  private async checkUser(claims: Claims): Promise<AuthenticatedUser> {
    // Our tokens always expire (contract section 3) and name a user by its integer id.
    const id = Number(claims.sub);
    const version = claims.ver ?? 0;
    if (typeof claims.exp !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_ID) throw invalid();
    if (!Number.isSafeInteger(version)) throw invalid();
    return this.userCheck.check(id, version);
  }
}
