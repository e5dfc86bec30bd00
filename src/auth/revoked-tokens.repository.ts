import { Injectable } from '@nestjs/common';
import { Postgres } from '../database/postgres';

/**
 * The revoked_tokens table (Auth's): logged-out tokens until they expire. The per-request user check
 * reads them with the user's row (the Users module's table) in one statement.
 */
@Injectable()
export class RevokedTokensRepository {
  constructor(private readonly postgres: Postgres) {}

  /**
   * Records a token as logged out until it expires (contract section 8, Logout), and deletes every
   * row whose token has expired meanwhile: the table holds only tokens that could still be used.
   */
  async revoke(token: { id: string; userId: number; expiresAt: Date }): Promise<void> {
    await this.postgres.query(
      undefined,
      `WITH expired AS (DELETE FROM revoked_tokens WHERE expires_at <= now())
     INSERT INTO revoked_tokens (token_id, user_id, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (token_id) DO NOTHING`,
      [token.id, token.userId, token.expiresAt],
    );
  }

  /**
   * The user's row (snake_case columns) with `revoked_tokens`, the ids of its unexpired revoked
   * tokens. Hot path of every authenticated request: one prepared statement, no query building; the
   * logged-out tokens come in the same round trip (an index look-up that finds nothing for most).
   */
  async userWithRevokedTokens(id: number): Promise<Record<string, unknown> | undefined> {
    const [row] = await this.postgres.query<Record<string, unknown>>(
      'users_check_v3',
      `SELECT id, email, role, is_administrator, tenant, hub, partner_id, partner_name, user_name, enabled,
              token_version,
              ARRAY(SELECT token_id FROM revoked_tokens r WHERE r.user_id = users.id AND r.expires_at > now())
                AS revoked_tokens
         FROM users WHERE id = $1`,
      [id],
    );
    return row;
  }
}
