import { Injectable, UnauthorizedException } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import type { FastifyRequest } from 'fastify';
import { Strategy } from 'passport-jwt';
import type { AuthenticatedUser, TokenClaims } from '../authenticated-user';
import { bearerToken } from '../bearer-token';
import { JwtKeyProvider } from '../jwt-key.provider';
import { UserCheckService } from '../user-check.service';

const MAX_ID = 2_147_483_647;

/**
 * Verifies the bearer token (HS256, signature and expiry, by passport-jwt) and checks its user
 * (UserCheckService). Passport keeps strategies in one process-wide registry: one application per
 * process (tests that need two with different secrets run the second as a child process).
 */
@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
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
    });
  }

  async validate(claims: Partial<TokenClaims> & { exp?: unknown }): Promise<AuthenticatedUser> {
    // Our tokens always expire (contract section 3) and name a user by its integer id.
    const id = Number(claims.sub);
    const version = claims.ver ?? 0;
    if (typeof claims.exp !== 'number' || !Number.isInteger(id) || id < 1 || id > MAX_ID)
      throw new UnauthorizedException('Invalid or expired token');
    if (!Number.isSafeInteger(version)) throw new UnauthorizedException('Invalid or expired token');
    return this.userCheck.check(id, version);
  }
}
