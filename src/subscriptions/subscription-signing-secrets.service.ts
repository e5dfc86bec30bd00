import { Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import { preparedQuery } from '../database/prepared-query';
import { generateSigningSecret } from './signing-secret';
import { SubscriptionStatements } from './subscription-statements';
import { subscriptionNotFound, visibleTo } from './subscription-visibility';

/**
 * The subscriptions' signing secrets (contract section 9): read, rotated, and filled in for rows
 * from before signing. Same table and visibility as SubscriptionsService; the secrets never leave
 * through it.
 */
@Injectable()
export class SubscriptionSigningSecrets {
  constructor(
    private readonly dataSource: DataSource,
    private readonly statements: SubscriptionStatements,
    private readonly secretBox: SecretBox,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  /**
   * The subscription's signing secret, to those who may see the subscription. A subscription from
   * before signing that SubscriptionSecretsBootstrap has not reached yet gets its secret here.
   */
  async current(user: AuthenticatedUser, id: number): Promise<string> {
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const [row] = await this.statements.query<{ encrypted: string | null }>(
      `SELECT signing_secret_encrypted AS encrypted FROM subscriptions ${where.where}`,
      where.params,
    );
    if (!row) return this.notFound(id);
    if (row.encrypted !== null) return this.secretBox.decrypt(row.encrypted);
    // COALESCE: whoever fills it first (an instance's bootstrap, another read) wins, once.
    const [filled] = await preparedQuery<{ encrypted: string }>(
      this.dataSource,
      'subscriptions_fill_signing_secret',
      `UPDATE subscriptions SET signing_secret_encrypted = COALESCE(signing_secret_encrypted, $2)
       WHERE id = $1 RETURNING signing_secret_encrypted AS encrypted`,
      [id, this.secretBox.encrypt(generateSigningSecret())],
    );
    return filled ? this.secretBox.decrypt(filled.encrypted) : this.notFound(id);
  }

  /**
   * Makes `key` (validated already) or a generated secret the signing secret; the one it replaces
   * keeps signing for WEBHOOK_SECRET_OVERLAP_MS. Returns the new secret and when the previous one
   * stops signing (null when there was none).
   */
  async rotate(
    user: AuthenticatedUser,
    id: number,
    key: string = generateSigningSecret(),
  ): Promise<{ key: string; previousKeyExpiresAt: Date | null }> {
    const overlapMs = this.config.getOrThrow('webhook', { infer: true }).secretOverlapMs;
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const n = where.params.length;
    // One statement: SET expressions see the row as it was, so the old secret moves over unread.
    const rows = await this.statements.query<{ until: Date | null }>(
      `UPDATE subscriptions SET
         previous_signing_secret_encrypted = signing_secret_encrypted,
         previous_signing_secret_until = CASE WHEN signing_secret_encrypted IS NOT NULL
           THEN now() + $${n + 2} * interval '1 millisecond' END,
         signing_secret_encrypted = $${n + 1}
       ${where.where}
       RETURNING previous_signing_secret_until AS until`,
      [...where.params, this.secretBox.encrypt(key), overlapMs],
    );
    return rows.length > 0 ? { key, previousKeyExpiresAt: rows[0].until } : this.notFound(id);
  }

  /**
   * Gives a signing secret to every subscription without one (rows from before migration
   * SubscriptionSigningSecrets), `batch` rows a statement. Instances starting together may both
   * run it: a row already filled is left as it is. Returns how many this call filled.
   */
  async fillMissing(batch = 500): Promise<number> {
    let filled = 0;
    for (;;) {
      const missing = await preparedQuery<{ id: number }>(
        this.dataSource,
        'subscriptions_missing_signing_secret',
        `SELECT id FROM subscriptions WHERE signing_secret_encrypted IS NULL ORDER BY id LIMIT $1`,
        [batch],
      );
      if (missing.length === 0) return filled;
      const ids = missing.map((row) => row.id);
      const secrets = ids.map(() => this.secretBox.encrypt(generateSigningSecret()));
      const updated = await preparedQuery<{ id: number }>(
        this.dataSource,
        'subscriptions_fill_signing_secrets',
        `UPDATE subscriptions s SET signing_secret_encrypted = f.secret
         FROM unnest($1::int[], $2::text[]) AS f(id, secret)
         WHERE s.id = f.id AND s.signing_secret_encrypted IS NULL
         RETURNING s.id`,
        [ids, secrets],
      );
      filled += updated.length;
    }
  }

  private notFound(id: number): never {
    throw new NotFoundException(subscriptionNotFound(id));
  }
}
