import { Injectable } from '@nestjs/common';
import type { NamedStatements } from '../common/paging/named-statements';
import { Postgres } from '../database/postgres';

/**
 * The subscriptions table's hot statements (benchmarked): hand-written SQL as named prepared
 * statements on TypeORM's own pg pool, no SQL building, hydration or re-planning per request. One
 * instance for SubscriptionsService and SubscriptionSigningSecrets, so one MAX_PREPARED_STATEMENTS
 * budget covers the table.
 */
@Injectable()
export class SubscriptionsRepository {
  private readonly statements: NamedStatements;

  constructor(private readonly postgres: Postgres) {
    this.statements = postgres.namedStatements('subscriptions');
  }

  /** `text` as the table's named statement (NamedStatements: a name per distinct text). */
  query<T>(text: string, values: unknown[]): Promise<T[]> {
    return this.statements.query<T>(text, values);
  }

  /** Seals `sealed` in as the signing secret unless one is there; returns the one it keeps. */
  async fillSigningSecret(id: number, sealed: string): Promise<string | undefined> {
    // COALESCE: whoever fills it first (an instance's bootstrap, another read) wins, once.
    const [filled] = await this.postgres.query<{ encrypted: string }>(
      'subscriptions_fill_signing_secret',
      `UPDATE subscriptions SET signing_secret_encrypted = COALESCE(signing_secret_encrypted, $2)
       WHERE id = $1 RETURNING signing_secret_encrypted AS encrypted`,
      [id, sealed],
    );
    return filled?.encrypted;
  }

  /** The ids of at most `limit` subscriptions without a signing secret, lowest first. */
  async withoutSigningSecret(limit: number): Promise<number[]> {
    const rows = await this.postgres.query<{ id: number }>(
      'subscriptions_missing_signing_secret',
      `SELECT id FROM subscriptions WHERE signing_secret_encrypted IS NULL ORDER BY id LIMIT $1`,
      [limit],
    );
    return rows.map((row) => row.id);
  }

  /** Sets each `ids[i]`'s signing secret to `sealed[i]` where it has none yet; returns how many. */
  async fillSigningSecrets(ids: number[], sealed: string[]): Promise<number> {
    const updated = await this.postgres.query<{ id: number }>(
      'subscriptions_fill_signing_secrets',
      `UPDATE subscriptions s SET signing_secret_encrypted = f.secret
       FROM unnest($1::int[], $2::text[]) AS f(id, secret)
       WHERE s.id = f.id AND s.signing_secret_encrypted IS NULL
       RETURNING s.id`,
      [ids, sealed],
    );
    return updated.length;
  }
}
