import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { OnEvent } from '@nestjs/event-emitter';
import { LRUCache } from 'lru-cache';
import type { AppConfig } from '../config/configuration';
import { USER_CHANGED } from '../users/users.service';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { RevokedTokensRepository } from './revoked-tokens.repository';

/** `revokedTokens`: ids of the user's tokens logged out and not yet expired. */
type CheckedUser = AuthenticatedUser & { enabled: boolean; tokenVersion: number; revokedTokens: string[] };

/** Users whose check is kept at once; the least recently used are dropped first. */
const MAX_CACHED_USERS = 10_000;
/** lru-cache stores no `null`: a user that does not exist is kept as this. */
const NO_USER = 'none' as const;

/**
 * The per-request user check of contract sections 3 and 8 (deleted → 401, disabled → 403, a token
 * issued before a password, enabled, role or administrator change → 401), cached for
 * USER_CACHE_TTL_MS (default 2 s): a change is seen within that bound on every instance, and at
 * once on the instance that made it.
 */
@Injectable()
export class UserCheckService {
  private readonly cache: LRUCache<number, CheckedUser | typeof NO_USER> | undefined;

  constructor(
    private readonly tokens: RevokedTokensRepository,
    config: ConfigService<AppConfig, true>,
  ) {
    const ttl = config.getOrThrow('auth', { infer: true }).userCacheTtlMs;
    this.cache = ttl > 0 ? new LRUCache({ max: MAX_CACHED_USERS, ttl }) : undefined;
  }

  /**
   * `tokenVersion`: the version the token was issued under (its `ver` claim; 0 before there was
   * one); `tokenId`: its id (tokenIdOf), refused once the token is logged out.
   */
  async check(id: number, tokenVersion: number, tokenId: string): Promise<AuthenticatedUser> {
    let user = this.cache?.get(id);
    // A token newer than the cached user was issued after a change this instance has not seen yet.
    const stale = user !== undefined && user !== NO_USER && tokenVersion > user.tokenVersion;
    if (user === undefined || stale) {
      user = (await this.load(id)) ?? NO_USER;
      this.cache?.set(id, user);
    }
    if (user === NO_USER) throw new UnauthorizedException('Invalid or expired token');
    if (!user.enabled) throw new ForbiddenException('Account is disabled');
    if (user.tokenVersion !== tokenVersion || user.revokedTokens.includes(tokenId)) {
      throw new UnauthorizedException('Invalid or expired token');
    }
    return user;
  }

  @OnEvent(USER_CHANGED)
  invalidate(id: number): void {
    this.cache?.delete(id);
  }

  private async load(id: number): Promise<CheckedUser | null> {
    const r = await this.tokens.userWithRevokedTokens(id);
    if (!r) return null;
    return {
      id: r.id as number,
      email: r.email as string,
      role: r.role as AuthenticatedUser['role'],
      isAdministrator: r.is_administrator as boolean,
      tenant: r.tenant as string,
      hub: r.hub as boolean,
      partnerId: r.partner_id as number,
      partnerName: r.partner_name as string,
      userName: r.user_name as string,
      enabled: r.enabled as boolean,
      tokenVersion: r.token_version as number,
      revokedTokens: r.revoked_tokens as string[],
    };
  }
}
