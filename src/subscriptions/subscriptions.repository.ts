import { Injectable } from '@nestjs/common';
import type { QueryRunner } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import type { Conditions } from '../common/paging/conditions';
import type { NamedStatements } from '../common/paging/named-statements';
import { readPage } from '../common/paging/read-page';
import type { SortOrder } from '../common/paging/sort';
import { Postgres } from '../database/postgres';
import { HEALTH_COLUMNS } from './dto/subscription-health';
import type { SubscriptionRecord } from './dto/subscription.response';

/** Every column but the encrypted ones (header value, signing secrets), named as the entity names them. */
const COLUMNS = `id, tenant, active, name, url, description, events, header_name AS "headerName",
  created_at AS "createdAt", updated_at AS "updatedAt",
  max_deliveries_per_second AS "maxDeliveriesPerSecond",
  ${HEALTH_COLUMNS}`;

/**
 * How many subscriptions tenant $1 has: its row of tenant_subscription_counts, which the table's
 * triggers keep (migration SubscriptionCountsPerTenant); one row read, however many it has.
 */
const TENANT_COUNT = `COALESCE((SELECT subscriptions FROM tenant_subscription_counts WHERE tenant = $1), 0)`;

/** The per-tenant lock of subscription creates and moves; any constant, the same everywhere. */
const TENANT_SUBSCRIPTIONS_LOCK = 72_700_003;

/** A new subscription's columns, its sealed values sealed for its id already. */
export interface NewSubscription {
  id: number;
  tenant: string;
  active: boolean;
  name: string;
  url: string;
  description: string | null;
  events: string[];
  headerName: string | null;
  headerValueSealed: string | null;
  signingSecretSealed: string;
  maxDeliveriesPerSecond: number | null;
}

/**
 * A full replacement's columns (SubscriptionsService.replace): `active` and `tenant` null keep
 * theirs; the header value is set (`headerValueSealed`), kept while the header name stays the same
 * (case-insensitively) or cleared; the rate is kept when `keepRate`.
 */
export interface SubscriptionReplacement {
  name: string;
  url: string;
  description: string | null;
  events: string[];
  active: boolean | null;
  tenant: string | null;
  headerName: string | null;
  headerMode: 'set' | 'keep' | 'clear';
  headerValueSealed: string | null;
  keepRate: boolean;
  maxDeliveriesPerSecond: number | null;
}

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

  /** The subscription `where` picks (an id, within what the caller may see), if any. */
  async findOne(where: Conditions): Promise<SubscriptionRecord | undefined> {
    const [row] = await this.statements.query<SubscriptionRecord>(
      `SELECT ${COLUMNS} FROM subscriptions ${where.where}`,
      where.params,
    );
    return row;
  }

  /** One page of the subscriptions `where` picks, in `orderBy`, and how many it picks in all. */
  page(
    where: Conditions,
    orderBy: SortOrder[],
    page: bigint,
    size: number,
  ): Promise<[SubscriptionRecord[], number]> {
    const select = { columns: COLUMNS, from: 'subscriptions', where, orderBy };
    return readPage<SubscriptionRecord>(this.statements, select, page, size);
  }

  /**
   * Serialises the creates and moves into one tenant until the transaction ends, on every instance:
   * a count and an insert alone would let two racing creates both see room (neither sees the other's
   * uncommitted row).
   */
  async lockTenant(runner: QueryRunner, tenant: string): Promise<void> {
    await runner.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TENANT_SUBSCRIPTIONS_LOCK, tenant]);
  }

  /** A new subscription's id, taken before its insert: the sealed values are bound to their row. */
  async nextId(runner: QueryRunner): Promise<number> {
    const [{ id }] = (await runner.query(
      `SELECT nextval(pg_get_serial_sequence('subscriptions', 'id'))::int AS id`,
    )) as Array<{ id: number }>;
    return id;
  }

  /**
   * Inserts `row` only while its tenant has fewer than `perTenantMax` subscriptions; undefined when
   * full. Run under lockTenant: the statement sees the count of every create that held the lock
   * before (tenant_subscription_counts, kept by the table's triggers: migration
   * SubscriptionCountsPerTenant).
   */
  async insertWhileRoom(
    runner: QueryRunner,
    row: NewSubscription,
    perTenantMax: number,
  ): Promise<SubscriptionRecord | undefined> {
    const rows = (await runner.query(
      `INSERT INTO subscriptions
           (tenant, active, name, url, description, events, header_name, header_value_encrypted,
            signing_secret_encrypted, id, max_deliveries_per_second)
         SELECT $1::text, $2::boolean, $3::text, $4::text, $5::text, $6::varchar(64)[], $7::text, $8::text, $9::text, $11::int,
           $12::int
         WHERE ${TENANT_COUNT} < $10
         RETURNING ${COLUMNS}`,
      [
        row.tenant,
        row.active,
        row.name,
        row.url,
        row.description,
        row.events,
        row.headerName,
        row.headerValueSealed,
        row.signingSecretSealed,
        perTenantMax,
        row.id,
        row.maxDeliveriesPerSecond,
      ],
    )) as SubscriptionRecord[];
    return rows[0];
  }

  /**
   * Replaces the subscription `where` picks, in one statement (SET expressions see the row as it
   * was, so keep/clear needs no prior read); returns it as it is now.
   */
  async replace(
    runner: QueryRunner,
    where: Conditions,
    to: SubscriptionReplacement,
  ): Promise<SubscriptionRecord | undefined> {
    const n = where.params.length;
    return this.returningOne(
      runner,
      `UPDATE subscriptions SET
         name = $${n + 1},
         url = $${n + 2},
         description = $${n + 3},
         events = $${n + 4}::varchar(64)[],
         active = COALESCE($${n + 5}::boolean, active),
         tenant = COALESCE($${n + 6}::varchar, tenant),
         header_name = $${n + 7}::varchar,
         header_value_encrypted = CASE $${n + 8}::text
           WHEN 'set' THEN $${n + 9}::text
           WHEN 'keep' THEN CASE WHEN lower(header_name) = lower($${n + 7}::varchar) THEN header_value_encrypted END
         END,
         max_deliveries_per_second = CASE WHEN $${n + 10}::boolean THEN max_deliveries_per_second
           ELSE $${n + 11}::int END,
         updated_at = now()
       ${where.where}
       RETURNING ${COLUMNS}`,
      [
        ...where.params,
        to.name,
        to.url,
        to.description,
        to.events,
        to.active,
        to.tenant,
        to.headerName,
        to.headerMode,
        to.headerValueSealed,
        to.keepRate,
        to.maxDeliveriesPerSecond,
      ],
    );
  }

  /** Deletes the subscription `where` picks; returns it as it was. */
  remove(runner: QueryRunner, where: Conditions): Promise<SubscriptionRecord | undefined> {
    return this.returningOne(
      runner,
      `DELETE FROM subscriptions ${where.where} RETURNING ${COLUMNS}`,
      where.params,
    );
  }

  /**
   * Locks subscription `id` for a move (FOR UPDATE: publishes of the old tenant that matched it
   * commit before, later ones wait and then see the new tenant).
   */
  async lockForMove(runner: QueryRunner, id: number): Promise<void> {
    await runner.query(`SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE`, [id]);
  }

  /**
   * Whether subscription `id` is of `tenant` already (null: it is gone) and how many subscriptions
   * `tenant` has.
   */
  async tenantOf(
    runner: QueryRunner,
    id: number,
    tenant: string,
  ): Promise<{ stays: boolean | null; count: number }> {
    const [row] = (await runner.query(
      `SELECT (SELECT tenant = $1 FROM subscriptions WHERE id = $2) AS stays,
              ${TENANT_COUNT} AS count`,
      [tenant, id],
    )) as Array<{ stays: boolean | null; count: number }>;
    return row;
  }

  /** The sealed signing secret of the subscription `where` picks (null: none yet), if any. */
  async signingSecret(where: Conditions): Promise<{ encrypted: string | null } | undefined> {
    const [row] = await this.statements.query<{ encrypted: string | null }>(
      `SELECT signing_secret_encrypted AS encrypted FROM subscriptions ${where.where}`,
      where.params,
    );
    return row;
  }

  /** As signingSecret, locking the row until the transaction ends (a rotation replaces it). */
  async signingSecretForUpdate(
    runner: QueryRunner,
    where: Conditions,
  ): Promise<{ encrypted: string | null } | undefined> {
    const [row] = (await runner.query(
      `SELECT signing_secret_encrypted AS encrypted FROM subscriptions ${where.where} FOR UPDATE`,
      where.params,
    )) as Array<{ encrypted: string | null }>;
    return row;
  }

  /**
   * Makes `sealed` subscription `id`'s signing secret, and `previousSealed` (when not null) its
   * previous one for `overlapMs`; returns when the previous one stops signing (null: none).
   */
  async rotateSigningSecret(
    runner: QueryRunner,
    id: number,
    sealed: string,
    previousSealed: string | null,
    overlapMs: number,
  ): Promise<Date | null> {
    const [[{ until }]] = (await runner.query(
      `UPDATE subscriptions SET
           previous_signing_secret_encrypted = $2::text,
           previous_signing_secret_until = CASE WHEN $2::text IS NOT NULL
             THEN now() + $3 * interval '1 millisecond' END,
           signing_secret_encrypted = $4
         WHERE id = $1
         RETURNING previous_signing_secret_until AS until`,
      [id, previousSealed, overlapMs, sealed],
    )) as [Array<{ until: Date | null }>, number]; // UPDATE: TypeORM answers [rows, count]
    return until;
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

  /** UPDATE/DELETE … RETURNING: the structured result gives the rows back. */
  private async returningOne(
    runner: QueryRunner,
    sql: string,
    params: unknown[],
  ): Promise<SubscriptionRecord | undefined> {
    const result = (await runner.query(sql, params, true)) as QueryResult<SubscriptionRecord>;
    return result.records[0];
  }
}
