import { Injectable } from '@nestjs/common';
import { PassportStrategy } from '@nestjs/passport';
import { ExtractJwt, Strategy } from 'passport-jwt';
import { JwtKeyProvider } from './jwt-key.provider';
import type { AuthenticatedUser, TokenClaims } from './authenticated-user';
import { UserCheckService } from './user-check.service';

@Injectable()
export class JwtStrategy extends PassportStrategy(Strategy, 'jwt') {
  constructor(
    key: JwtKeyProvider,
    private readonly userCheck: UserCheckService,
  ) {
    super({
      jwtFromRequest: ExtractJwt.fromAuthHeaderAsBearerToken(),
      // A KeyObject, not a string: given a string the token library tries to parse it as a PEM key
      // on every verify. Only HS256 is accepted (no `alg: none`, no algorithm confusion).
      secretOrKey: key.key as unknown as string,
      algorithms: ['HS256'],
      ignoreExpiration: false,
    });
  }

  async validate(claims: TokenClaims): Promise<AuthenticatedUser> {
    return this.userCheck.check(Number(claims.sub));
  }
}
