import { createHash } from 'node:crypto';
import { Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { pageOffset } from '../common/paging/page';
import { parseSort } from '../common/paging/sort';
import { MAX_STRING_LENGTH } from '../common/reference/enums';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListActiveSubscriptionsQueryDto } from './dto/list-active-subscriptions.query';
import { ListSubscriptionsQueryDto, SUBSCRIPTION_SORT_FIELDS } from './dto/list-subscriptions.query';
import type { SubscriptionRecord } from './dto/subscription.response';
import { hasControlCharacters } from '../common/validation/text-rules';
import { isNonPublicHost } from './webhook-url';
import { preparedQuery } from '../database/prepared-query';

/** Every column but header_value_encrypted, named as the entity names them. */
const COLUMNS = `id, tenant, active, name, url, description, events, header_name AS "headerName",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/** The 404 message for a subscription id that does not exist or is not visible (also IdParamPipe's). */
export const subscriptionNotFound = (id: number | string) => `Subscription ${id} not found`;

/** `\`, `%` and `_` match themselves in `index` (contract section 4). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * ORDER BY for both lists: `sort` over SUBSCRIPTION_SORT_FIELDS (default id asc), ties broken by id so
 * pages never overlap. Columns come only from the parseSort whitelist, never from the request text.
 */
function orderByOf(sort: string[] | undefined): string {
  const orders = parseSort(sort, SUBSCRIPTION_SORT_FIELDS, []);
  if (!orders.some((o) => o.column === 'id')) orders.push({ column: 'id', direction: 'ASC' });
  return orders.map((o) => `${o.column} ${o.direction}`).join(', ');
}

/** Distinct SQL texts run as named prepared statements (each connection keeps at most this many). */
const MAX_PREPARED_STATEMENTS = 100;

/** WHERE conditions and their $n parameters, built together so the numbers always match. */
class Conditions {
  readonly params: unknown[] = [];
  private readonly parts: string[] = [];

  add(sql: (placeholder: string) => string, value: unknown): this {
    this.params.push(value);
    this.parts.push(sql(`$${this.params.length}`));
    return this;
  }

  get where(): string {
    return this.parts.length > 0 ? `WHERE ${this.parts.join(' AND ')}` : '';
  }
}

/**
 * Webhook subscriptions (contract sections 3-5). ROLE_PARTNER users see their own tenant only and
 * another tenant's subscription is a 404; administrators act on every tenant.
 */
@Injectable()
export class SubscriptionsService {
  /** SQL text → prepared statement name (see prepared()). */
  private readonly statementNames = new Map<string, string>();

  constructor(
    private readonly dataSource: DataSource,
    private readonly secretBox: SecretBox,
    private readonly config: ConfigService<AppConfig, true>,
  ) {}

  async list(
    user: AuthenticatedUser,
    query: ListSubscriptionsQueryDto,
  ): Promise<[SubscriptionRecord[], number]> {
    const where = this.visibleTo(user, query.tenant);
    if (query.index) {
      // lower(name) LIKE lower(pattern): the form the trigram index IDX_subscriptions_name_trgm serves.
      where.add((p) => `lower(name) LIKE lower(${p}) ESCAPE '\\'`, `%${escapeLike(query.index)}%`);
    }
    return this.page(where, orderByOf(query.sort), query.page, query.size);
  }

  async listActive(
    user: AuthenticatedUser,
    query: ListActiveSubscriptionsQueryDto,
  ): Promise<[SubscriptionRecord[], number]> {
    const where = this.visibleTo(user, query.tenant).add((p) => `active = ${p}`, query.active ?? true);
    return this.page(where, orderByOf(query.sort), query.page, query.size);
  }

  async get(user: AuthenticatedUser, id: number): Promise<SubscriptionRecord> {
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
    const rows: SubscriptionRecord[] = await this.dataSource.query(
      `SELECT ${COLUMNS} FROM subscriptions ${where.where}`,
      where.params,
    );
    return rows[0] ?? this.notFound(id);
  }

  async create(user: AuthenticatedUser, body: CreateSubscriptionDto): Promise<SubscriptionRecord> {
    const tenant = (user.isAdministrator ? this.tenantFromBody(body.tenant) : undefined) ?? user.tenant;
    this.checkUrlAllowed(body.url);
    const headerName = body.headerName ?? null;
    const headerValue = headerName !== null && typeof body.headerValue === 'string' ? body.headerValue : null;
    const rows = await preparedQuery<SubscriptionRecord>(
      this.dataSource,
      'subscriptions_insert',
      `INSERT INTO subscriptions
         (tenant, active, name, url, description, events, header_name, header_value_encrypted)
       VALUES ($1, $2, $3, $4, $5, $6::varchar(64)[], $7, $8)
       RETURNING ${COLUMNS}`,
      [
        tenant,
        body.active ?? true,
        body.name,
        body.url,
        body.description ?? null,
        distinct(body.events),
        headerName,
        headerValue === null ? null : this.secretBox.encrypt(headerValue),
      ],
    );
    return rows[0];
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
    const tenant = user.isAdministrator ? (this.tenantFromBody(body.tenant) ?? null) : null;
    this.checkUrlAllowed(body.url);
    const headerName = body.headerName ?? null;
    let headerMode: 'set' | 'keep' | 'clear' = 'clear';
    if (headerName !== null && typeof body.headerValue === 'string') headerMode = 'set';
    else if (headerName !== null && body.headerValue === undefined) headerMode = 'keep';
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
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
        headerMode === 'set' ? this.secretBox.encrypt(body.headerValue as string) : null,
      ],
      tenant === null ? undefined : id,
    );
    return row ?? this.notFound(id);
  }

  /** 200 with the subscription as it was; its deliveries go with it (ON DELETE CASCADE). */
  async remove(user: AuthenticatedUser, id: number): Promise<SubscriptionRecord> {
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
    const row = await this.mutateOne(
      `DELETE FROM subscriptions ${where.where} RETURNING ${COLUMNS}`,
      where.params,
    );
    return row ?? this.notFound(id);
  }

  /** A non-administrator sees its own tenant; an administrator every tenant, or the one it asks for. */
  private visibleTo(user: AuthenticatedUser, tenantFilter?: string): Conditions {
    const conditions = new Conditions();
    const tenant = user.isAdministrator ? tenantFilter : user.tenant;
    return tenant === undefined ? conditions : conditions.add((p) => `tenant = ${p}`, tenant);
  }

  // Hot path (benchmarked): hand-written SQL as named prepared statements on TypeORM's own pg pool:
  // no SQL building, hydration or re-planning per request. The count rides along with the page as
  // a scalar subquery (computed once), so a page is one round trip to one backend; only a page
  // with no rows (past the end, or nothing matches) needs the count on its own.
  private async page(
    where: Conditions,
    orderBy: string,
    page: bigint,
    size: number,
  ): Promise<[SubscriptionRecord[], number]> {
    const n = where.params.length;
    const offset = pageOffset(page, size);
    const count = `SELECT count(*) AS total FROM subscriptions ${where.where}`;
    if (offset !== undefined) {
      const rows = await this.prepared<SubscriptionRecord & { total: string }>(
        `SELECT ${COLUMNS}, (${count}) AS total FROM subscriptions ${where.where}
          ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...where.params, size, offset],
      );
      // Each row keeps its `total` field: responses are built field by field (toSubscriptionResponse).
      if (rows.length > 0) return [rows, Number(rows[0].total)];
    }
    const [{ total }] = await this.prepared<{ total: string }>(count, where.params);
    return [[], Number(total)];
  }

  /**
   * Runs `text` as a named prepared statement, parsed and planned once per connection. The texts
   * come from a finite set (filters × whitelisted sort orders); past MAX_PREPARED_STATEMENTS of them
   * (many-field sorts) a text runs unnamed, so no connection keeps an unbounded number.
   */
  private async prepared<T>(text: string, values: unknown[]): Promise<T[]> {
    let name = this.statementNames.get(text);
    if (name === undefined && this.statementNames.size < MAX_PREPARED_STATEMENTS) {
      name = `subscriptions_${createHash('sha1').update(text).digest('hex').slice(0, 24)}`;
      this.statementNames.set(text, name);
    }
    return preparedQuery<T>(this.dataSource, name, text, values);
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
    movable?: number,
  ): Promise<SubscriptionRecord | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const runner = manager.queryRunner!;
      if (movable !== undefined) {
        await runner.query(`SELECT 1 FROM subscriptions WHERE id = $1 FOR UPDATE`, [movable]);
      }
      const result = (await runner.query(sql, params, true)) as QueryResult<SubscriptionRecord>;
      // A tenant change drops its jobs and history in this transaction (a trigger: migration
      // SubscriptionMoveClearsItsHistory), as a DELETE's foreign keys do.
      return result.records[0];
    });
  }

  /** An administrator's `tenant` in a body; undefined or null means "not given". */
  private tenantFromBody(value: unknown): string | undefined {
    if (value === undefined || value === null) return undefined;
    let message: string | undefined;
    if (typeof value !== 'string') message = 'tenant must be a string';
    else if (value.trim() === '') message = 'tenant must not be empty';
    else if ([...value].length > MAX_STRING_LENGTH)
      message = `tenant must be at most ${MAX_STRING_LENGTH} characters`;
    else if (hasControlCharacters(value)) message = 'tenant must not contain control characters';
    if (message) throw new ValidationFailedException([{ field: 'tenant', message }]);
    return value as string;
  }

  /** Literal private, loopback and link-local addresses: 400 unless allowed (contract section 5). */
  private checkUrlAllowed(url: string): void {
    if (this.config.getOrThrow('webhook', { infer: true }).allowPrivateNetworks) return;
    if (isNonPublicHost(url)) {
      throw new ValidationFailedException([
        { field: 'url', message: 'url must not point to a private, loopback or link-local address' },
      ]);
    }
  }

  private notFound(id: number): never {
    throw new NotFoundException(subscriptionNotFound(id));
  }
}

/** Duplicates collapsed, first occurrence kept (contract section 5). */
const distinct = <T>(values: T[]): T[] => [...new Set(values)];
