import { Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyRequest } from 'fastify';
import { LRUCache } from 'lru-cache';
import { Strategy } from 'passport-jwt';
import type { AuthenticatedUser, TokenClaims } from '../../common/auth/authenticated-user';
import { bearerToken } from '../../common/http/bearer-token';
import { JwtKeyProvider } from '../jwt-key.provider';
import { tokenIdOf } from '../token-id';
import { UserCheckService } from '../user-check.service';

const MAX_ID = 2_147_483_647;
const MAX_CACHED_TOKENS = 10_000;

type Claims = Partial<TokenClaims> & { exp?: unknown };
/** Claims that passed checkUser: `exp` is a number of seconds; `tokenId` from tokenIdOf. */
type VerifiedClaims = Claims & { exp: number; tokenId: string };
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
   * matches); expiry is checked again on every use, so the cache needs no time-to-live bookkeeping
   * of its own. Saves an HMAC and a JSON parse on most requests (bench api-me).
   */
  private readonly verified = new LRUCache<string, VerifiedClaims>({ max: MAX_CACHED_TOKENS });

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

  /**
   * The user of a token this strategy verified before and that has not expired since, checked
   * now (UserCheckService: deleted, disabled, revoked); undefined when the token must go through
   * passport-jwt's verification (never seen, evicted, expired, or no well-formed header at all).
   */
  verifiedUser(token: string | undefined): Promise<AuthenticatedUser> | undefined {
    if (token === undefined) return undefined;
    const claims = this.verified.get(token);
    if (claims === undefined) return undefined;
    // passport-jwt refuses a token once `exp` (whole seconds) is reached: the same rule here.
    if (claims.exp * 1000 <= Date.now()) {
      this.verified.delete(token);
      return undefined;
    }
    return this.checkUser(claims);
  }

  /** passport-strategy's entry point: a token verified before goes straight to the user check. */
  override authenticate(request: { headers: IncomingHttpHeaders }, options?: object): void {
    const user = this.verifiedUser(bearerToken(request.headers.authorization));
    if (!user) return super.authenticate(request as never, options);
    user.then(
      (checked) => this.success(checked),
      (error: unknown) => this.error(error as Error),
    );
  }

  /** Called by passport-jwt once the token's signature and expiry are verified. */
  async validate(request: FastifyRequest, claims: Claims): Promise<AuthenticatedUser> {
    const token = bearerToken(request.headers.authorization)!;
    const verified = { ...claims, tokenId: tokenIdOf(token, claims.jti) } as VerifiedClaims;
    const user = await this.checkUser(verified);
    this.verified.set(token, verified);
    return user;
  }

  private async checkUser(claims: Claims & { tokenId: string }): Promise<AuthenticatedUser> {
    // Our tokens always expire (contract section 3) and name a user by its integer id.
    const id = Number(claims.sub);
    const version = claims.ver ?? 0;
    if (typeof claims.exp !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_ID) throw invalid();
    if (!Number.isSafeInteger(version)) throw invalid();
    return this.userCheck.check(id, version, claims.tokenId);
  }
}
