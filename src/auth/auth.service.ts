import { randomUUID } from 'node:crypto';
import { Injectable, OnModuleInit, UnauthorizedException } from '@nestjs/common';
import { JwtService } from '@nestjs/jwt';
import { ConfigService } from '@nestjs/config';
import type { AppConfig } from '../config/configuration';
import { LoginAttemptsService } from '../common/rate-limit/login-attempts.service';
import { UsersService } from '../users/users.service';
import { hashOfRandomPassword, verifyPassword } from '../users/password-hasher';
import type { TokenClaims } from '../common/auth/authenticated-user';
import { RevokedTokensRepository } from './revoked-tokens.repository';
import { tokenIdOf } from './token-id';
import { UserCheckService } from './user-check.service';
import type { LoginResponse } from './dto/auth.responses';

@Injectable()
export class AuthService implements OnModuleInit {
  private readonly ttlMs: number;
  /** Verified against for an unknown e-mail; made before the application accepts requests. */
  private unknownEmailHash = '';

  constructor(
    private readonly users: UsersService,
    private readonly attempts: LoginAttemptsService,
    private readonly jwt: JwtService,
    private readonly revokedTokens: RevokedTokensRepository,
    private readonly userCheck: UserCheckService,
    config: ConfigService<AppConfig, true>,
  ) {
    this.ttlMs = config.getOrThrow('auth', { infer: true }).tokenTtlMs;
  }

  async onModuleInit(): Promise<void> {
    this.unknownEmailHash = await hashOfRandomPassword();
  }

  /**
   * Unknown e-mail, wrong password and disabled account all take one argon2 verification and end in
   * the same 401 (contract section 3: no account enumeration), and all count as a failed login for
   * the password-guessing limits (contract section 8), checked by the rate-limit guard.
   */
  async login(email: string, password: string, clientIp: string): Promise<LoginResponse> {
    const user = await this.users.findByEmailWithHash(email);
    const valid = await verifyPassword(user?.passwordHash ?? this.unknownEmailHash, password);
    if (!user || !valid || !user.enabled) {
      await this.attempts.recordFailure(email, clientIp);
      throw new UnauthorizedException('Invalid e-mail or password');
    }
    const claims: TokenClaims = {
      sub: user.id,
      tenant: user.tenant,
      role: user.role,
      adm: user.isAdministrator,
      ver: user.tokenVersion,
      jti: randomUUID(),
    };
    const token = await this.jwt.signAsync(claims);
    return { token, expiresIn: this.ttlMs };
  }

  /**
   * Refuses `token` (verified by the JWT guard for this request) from now on: at once here (the
   * user's cached check is dropped), within USER_CACHE_TTL_MS on every other instance.
   */
  async logout(token: string): Promise<void> {
    const claims = this.jwt.decode<{ sub: number; exp: number; jti?: unknown }>(token);
    await this.revokedTokens.revoke({
      id: tokenIdOf(token, claims.jti),
      userId: claims.sub,
      expiresAt: new Date(claims.exp * 1000),
    });
    this.userCheck.invalidate(claims.sub);
  }
}
