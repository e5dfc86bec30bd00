import { ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { OnEvent } from '@nestjs/event-emitter';
import { DataSource } from 'typeorm';
import { BoundedMap } from '../common/cache/bounded-map';
import type { AppConfig } from '../config/configuration';
import { preparedQuery } from '../database/prepared-query';
import { USER_CHANGED } from '../users/users.service';
import type { AuthenticatedUser } from './authenticated-user';

interface Entry {
  user: (AuthenticatedUser & { enabled: boolean }) | null;
  expiresAt: number;
}

/**
 * The per-request user check of contract section 3 (deleted → 401, disabled → 403), cached for
 * USER_CACHE_TTL_MS (default 2 s): a disabled or deleted user is refused within that bound on
 * every instance, and at once on the instance that changed it.
 */
@Injectable()
export class UserCheckService {
  private readonly cache = new BoundedMap<number, Entry>(10_000);
  private readonly ttlMs: number;

  constructor(
    private readonly dataSource: DataSource,
    config: ConfigService<AppConfig, true>,
  ) {
    this.ttlMs = config.getOrThrow('auth', { infer: true }).userCacheTtlMs;
  }

  async check(id: number): Promise<AuthenticatedUser> {
    const now = Date.now();
    let entry = this.cache.get(id);
    if (!entry || entry.expiresAt <= now) {
      entry = { user: await this.load(id), expiresAt: now + this.ttlMs };
      if (this.ttlMs > 0) this.cache.set(id, entry);
    }
    if (!entry.user) throw new UnauthorizedException('Invalid or expired token');
    if (!entry.user.enabled) throw new ForbiddenException('Account is disabled');
    return entry.user;
  }

  @OnEvent(USER_CHANGED)
  invalidate(id: number): void {
    this.cache.delete(id);
  }

  // Hot path of every authenticated request: one prepared statement, no query building.
  private async load(id: number): Promise<(AuthenticatedUser & { enabled: boolean }) | null> {
    const rows = await preparedQuery<Record<string, unknown>>(
      this.dataSource,
      'users_check',
      `SELECT id, email, role, is_administrator, tenant, hub, partner_id, partner_name, user_name, enabled
         FROM users WHERE id = $1`,
      [id],
    );
    const r = rows[0];
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
    };
  }
}
