import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, QueryRunner } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import type { Conditions } from '../common/paging/conditions';
import { readPage } from '../common/paging/read-page';
import { parseSort, SortOrder, totalOrder } from '../common/paging/sort';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListActiveSubscriptionsQueryDto } from './dto/list-active-subscriptions.query';
import { ListSubscriptionsQueryDto, SUBSCRIPTION_SORT_FIELDS } from './dto/list-subscriptions.query';
import { HEALTH_COLUMNS, HEALTH_STATUS_SQL, SubscriptionHealthStatus } from './dto/subscription-health';
import type { SubscriptionRecord } from './dto/subscription.response';
import { generateSigningSecret } from './signing-secret';
import { checkUrlAllowed, distinct, tenantFromBody } from './subscription-body-rules';
import { sealedIn } from './sealed-columns';
import { SubscriptionsRepository } from './subscriptions.repository';
import { subscriptionNotFound, visibleTo } from './subscription-visibility';

/** Every column but the encrypted ones (header value, signing secrets), named as the entity names them. */
const COLUMNS = `id, tenant, active, name, url, description, events, header_name AS "headerName",
  created_at AS "createdAt", updated_at AS "updatedAt",
  max_deliveries_per_second AS "maxDeliveriesPerSecond",
  ${HEALTH_COLUMNS}`;

/** The per-tenant lock of subscription creates and moves; any constant, the same everywhere. */
const TENANT_SUBSCRIPTIONS_LOCK = 72_700_003;

/**
 * Serialises the creates and moves into one tenant until the transaction ends, on every instance:
 * a count and an insert alone would let two racing creates both see room (neither sees the other's
 * uncommitted row).
 */
async function lockTenantSubscriptions(runner: QueryRunner, tenant: string): Promise<void> {
  await runner.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [TENANT_SUBSCRIPTIONS_LOCK, tenant]);
}

/** `\`, `%` and `_` match themselves in `index` (contract section 4). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The order of both lists: `sort` over SUBSCRIPTION_SORT_FIELDS (default id asc), ties by id.
 * Columns come only from the parseSort whitelist, never from the request text.
 */
const orderOf = (sort: string[] | undefined): SortOrder[] =>
  totalOrder(parseSort(sort, SUBSCRIPTION_SORT_FIELDS, []), ['id']);

/**
 * The `health` filter (contract section 11). Not indexed (migration SubscriptionHealth): read
 * among the rows the other conditions pick.
 */
function withHealth(where: Conditions, health: SubscriptionHealthStatus | undefined): Conditions {
  return health === undefined ? where : where.add((p) => `${HEALTH_STATUS_SQL} = ${p}`, health);
}

/**
 * Webhook subscriptions (contract sections 3-5). ROLE_PARTNER users see their own tenant only and
 * another tenant's subscription is a 404; administrators act on every tenant.
 */
@Injectable()
export class SubscriptionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly statements: SubscriptionsRepository,
    private readonly secretBox: SecretBox,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async list(
    user: AuthenticatedUser,
    query: ListSubscriptionsQueryDto,
  ): Promise<[SubscriptionRecord[], number]> {
    const where = visibleTo(user, query.tenant);
    if (query.index) {
      // lower(name) LIKE lower(pattern): the form the trigram index IDX_subscriptions_name_trgm serves.
      where.add((p) => `lower(name) LIKE lower(${p}) ESCAPE '\\'`, `%${escapeLike(query.index)}%`);
    }
    return this.page(withHealth(where, query.health), query);
  }

  async listActive(
    user: AuthenticatedUser,
    query: ListActiveSubscriptionsQueryDto,
  ): Promise<[SubscriptionRecord[], number]> {
    const where = visibleTo(user, query.tenant).add((p) => `active = ${p}`, query.active ?? true);
    return this.page(withHealth(where, query.health), query);
  }

  /**
   * The subscription if `user` may see it (visibleTo), else the 404 (subscriptionNotFound; routes
   * under the subscription pass the text without the id). Other modules ask here, never the table.
   */
  async findVisible(
    user: AuthenticatedUser,
    id: number,
    notFound = subscriptionNotFound(id),
  ): Promise<SubscriptionRecord> {
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const [row] = await this.statements.query<SubscriptionRecord>(
      `SELECT ${COLUMNS} FROM subscriptions ${where.where}`,
      where.params,
    );
    return row ?? this.notFound(notFound);
  }

  async create(user: AuthenticatedUser, body: CreateSubscriptionDto): Promise<SubscriptionRecord> {
    const tenant = (user.isAdministrator ? tenantFromBody(body.tenant) : undefined) ?? user.tenant;
    checkUrlAllowed(body.url, this.allowPrivateNetworks);
    const headerName = body.headerName ?? null;
    const headerValue = headerName !== null && typeof body.headerValue === 'string' ? body.headerValue : null;
    const created = await this.dataSource.transaction(async (manager) => {
      await lockTenantSubscriptions(manager.queryRunner!, tenant);
      // The id first: the sealed values are bound to their row (SecretBox).
      const [{ id }] = (await manager.query(
        `SELECT nextval(pg_get_serial_sequence('subscriptions', 'id'))::int AS id`,
      )) as Array<{ id: number }>;
      // Inserted only while the tenant has room, counted after the lock (a statement of its own, so
      // it sees every create that held the lock before).
      const rows: SubscriptionRecord[] = await manager.query(
        `INSERT INTO subscriptions
           (tenant, active, name, url, description, events, header_name, header_value_encrypted,
            signing_secret_encrypted, id, max_deliveries_per_second)
         SELECT $1::text, $2::boolean, $3::text, $4::text, $5::text, $6::varchar(64)[], $7::text, $8::text, $9::text, $11::int,
           $12::int
         WHERE (SELECT count(*) FROM subscriptions WHERE tenant = $1) < $10
         RETURNING ${COLUMNS}`,
        [
          tenant,
          body.active ?? true,
          body.name,
          body.url,
          body.description ?? null,
          distinct(body.events),
          headerName,
          headerValue === null ? null : this.secretBox.seal(headerValue, sealedIn.headerValue(id)),
          this.secretBox.seal(generateSigningSecret(), sealedIn.signingSecret(id)),
          this.perTenantMax,
          id,
          body.maxDeliveriesPerSecond ?? null,
        ],
      );
      return rows[0];
    });
    return created ?? this.tenantFull();
  }

  /**
   * Full replacement (contract section 5): `active` omitted keeps its value; the stored headerValue
   * is kept only when headerValue is omitted and headerName is the same (case-insensitively).
   */
  async replace(
    user: AuthenticatedUser,
    id: number,
    body: CreateSubscriptionDto,
  ): Promise<SubscriptionRecord> {
    // tenant is writable by administrators only; omitted, it stays as it is.
    const tenant = user.isAdministrator ? (tenantFromBody(body.tenant) ?? null) : null;
    checkUrlAllowed(body.url, this.allowPrivateNetworks);
    const headerName = body.headerName ?? null;
    let headerMode: 'set' | 'keep' | 'clear' = 'clear';
    if (headerName !== null && typeof body.headerValue === 'string') headerMode = 'set';
    else if (headerName !== null && body.headerValue === undefined) headerMode = 'keep';
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const n = where.params.length;
    // One statement: SET expressions see the row as it was, so keep/clear needs no prior read.
    const row = await this.mutateOne(
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
        body.name,
        body.url,
        body.description ?? null,
        distinct(body.events),
        body.active ?? null,
        tenant,
        headerName,
        headerMode,
        headerMode === 'set'
          ? this.secretBox.seal(body.headerValue as string, sealedIn.headerValue(id))
          : null,
        // Left out: unchanged (an older client's PUT never lifts a limit it does not know of).
        body.maxDeliveriesPerSecond === undefined,
        body.maxDeliveriesPerSecond ?? null,
      ],
      tenant === null ? undefined : { id, tenant },
    );
    return row ?? this.notFound(subscriptionNotFound(id));
  }

  /** 200 with the subscription as it was; its deliveries go with it (ON DELETE CASCADE). */
  async remove(user: AuthenticatedUser, id: number): Promise<SubscriptionRecord> {
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const row = await this.mutateOne(
      `DELETE FROM subscriptions ${where.where} RETURNING ${COLUMNS}`,
      where.params,
    );
    return row ?? this.notFound(subscriptionNotFound(id));
  }

  private page(
    where: Conditions,
    query: { sort?: string[]; page: bigint; size: number },
  ): Promise<[SubscriptionRecord[], number]> {
    const select = { columns: COLUMNS, from: 'subscriptions', where, orderBy: orderOf(query.sort) };
    return readPage<SubscriptionRecord>(this.statements, select, query.page, query.size);
  }

  /**
   * UPDATE/DELETE … RETURNING in a transaction; the structured result gives the rows back.
   * `movable`: the id of a subscription an administrator's PUT may move to another tenant. Its row
   * is locked first (FOR UPDATE: publishes of the old tenant that matched it commit before, later
   * ones wait and then see the new tenant), and if the tenant changes, the old tenant's pending
   * deliveries and history go (the database's trigger), as on DELETE: the events of one tenant
   * never reach, nor show to, another.
   */
  private async mutateOne(
    sql: string,
    params: unknown[],
    movable?: { id: number; tenant: string },
  ): Promise<SubscriptionRecord | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const runner = manager.queryRunner!;
      if (movable !== undefined) {
        await runner.query(`SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE`, [movable.id]);
        await this.checkRoomToMoveIn(runner, movable.id, movable.tenant);
      }
      const result = (await runner.query(sql, params, true)) as QueryResult<SubscriptionRecord>;
      // A tenant change drops its jobs and history in this transaction (a trigger: migration
      // SubscriptionMoveClearsItsHistory), as a DELETE's foreign keys do.
      return result.records[0];
    });
  }

  /** A subscription moved to another tenant counts against that tenant's limit, as a create does. */
  private async checkRoomToMoveIn(runner: QueryRunner, id: number, tenant: string): Promise<void> {
    await lockTenantSubscriptions(runner, tenant);
    const [{ stays, count }] = (await runner.query(
      `SELECT (SELECT tenant = $1 FROM subscriptions WHERE id = $2) AS stays,
              (SELECT count(*)::int FROM subscriptions WHERE tenant = $1) AS count`,
      [tenant, id],
    )) as Array<{ stays: boolean | null; count: number }>;
    if (stays === false && count >= this.perTenantMax) this.tenantFull();
  }

  /** Contract section 8, Subscriptions per tenant: 409 naming the limit. */
  private tenantFull(): never {
    throw new ConflictException(
      `The tenant already has ${this.perTenantMax} subscriptions, the most allowed ` +
        '(SUBSCRIPTIONS_PER_TENANT_MAX): delete one first',
    );
  }

  private get perTenantMax(): number {
    return this.config.getOrThrow('subscriptions', { infer: true }).perTenantMax;
  }

  /** For the url rule (checkUrlAllowed): WEBHOOK_ALLOW_PRIVATE_NETWORKS. */
  private get allowPrivateNetworks(): boolean {
    return this.config.getOrThrow('webhook', { infer: true }).allowPrivateNetworks;
  }

  private notFound(message: string): never {
    throw new NotFoundException(message);
  }
}
