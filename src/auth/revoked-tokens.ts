import type { DataSource } from 'typeorm';

/**
 * Records a token as logged out until it expires (contract section 8, Logout), and deletes every
 * row whose token has expired meanwhile: the table holds only tokens that could still be used.
 */
export async function revokeToken(
  dataSource: DataSource,
  token: { id: string; userId: number; expiresAt: Date },
): Promise<void> {
  await dataSource.query(
    `WITH expired AS (DELETE FROM revoked_tokens WHERE expires_at <= now())
     INSERT INTO revoked_tokens (token_id, user_id, expires_at) VALUES ($1, $2, $3)
     ON CONFLICT (token_id) DO NOTHING`,
    [token.id, token.userId, token.expiresAt],
  );
}
