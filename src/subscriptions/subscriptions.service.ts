import { Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import type { QueryResult } from 'typeorm/query-runner/QueryResult';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { Conditions } from '../common/paging/conditions';
import { NamedStatements } from '../common/paging/named-statements';
import { readPage } from '../common/paging/read-page';
import { parseSort, SortOrder, totalOrder } from '../common/paging/sort';
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
import { generateSigningSecret } from './signing-secret';

/** Every column but the encrypted ones (header value, signing secrets), named as the entity names them. */
const COLUMNS = `id, tenant, active, name, url, description, events, header_name AS "headerName",
  created_at AS "createdAt", updated_at AS "updatedAt"`;

/**
 * The one 404 of a subscription that does not exist or that the user may not see (contract section
 * 3: another tenant's is not revealed). The subscription's own routes name the id they were given;
 * the routes under it (its deliveries) do not. Also IdParamPipe's, for ids past `integer`.
 */
export const subscriptionNotFound = (id?: number | string) =>
  id === undefined ? 'Subscription not found' : `Subscription ${id} not found`;

/** `\`, `%` and `_` match themselves in `index` (contract section 4). */
export const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

/**
 * The order of both lists: `sort` over SUBSCRIPTION_SORT_FIELDS (default id asc), ties by id.
 * Columns come only from the parseSort whitelist, never from the request text.
 */
const orderOf = (sort: string[] | undefined): SortOrder[] =>
  totalOrder(parseSort(sort, SUBSCRIPTION_SORT_FIELDS, []), ['id']);

/**
 * Webhook subscriptions (contract sections 3-5). ROLE_PARTNER users see their own tenant only and
 * another tenant's subscription is a 404; administrators act on every tenant.
 */
@Injectable()
export class SubscriptionsService {
  // Hot path (benchmarked): hand-written SQL as named prepared statements on TypeORM's own pg pool:
  // no SQL building, hydration or re-planning per request.
  private readonly statements = new NamedStatements('subscriptions', (name, text, values) =>
    preparedQuery(this.dataSource, name, text, values),
  );

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
    return this.page(where, query);
  }

  async listActive(
    user: AuthenticatedUser,
    query: ListActiveSubscriptionsQueryDto,
  ): Promise<[SubscriptionRecord[], number]> {
    const where = this.visibleTo(user, query.tenant).add((p) => `active = ${p}`, query.active ?? true);
    return this.page(where, query);
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
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
    const [row] = await this.statements.query<SubscriptionRecord>(
      `SELECT ${COLUMNS} FROM subscriptions ${where.where}`,
      where.params,
    );
    return row ?? this.notFound(notFound);
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
         (tenant, active, name, url, description, events, header_name, header_value_encrypted,
          signing_secret_encrypted)
       VALUES ($1, $2, $3, $4, $5, $6::varchar(64)[], $7, $8, $9)
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
        this.secretBox.encrypt(generateSigningSecret()),
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
    return row ?? this.notFound(subscriptionNotFound(id));
  }

  /** 200 with the subscription as it was; its deliveries go with it (ON DELETE CASCADE). */
  async remove(user: AuthenticatedUser, id: number): Promise<SubscriptionRecord> {
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
    const row = await this.mutateOne(
      `DELETE FROM subscriptions ${where.where} RETURNING ${COLUMNS}`,
      where.params,
    );
    return row ?? this.notFound(subscriptionNotFound(id));
  }

  /**
   * The subscription's signing secret (contract section 9), to those who may see the subscription.
   * A subscription from before signing that SubscriptionSecretsBootstrap has not reached yet gets
   * its secret here.
   */
  async signingSecret(user: AuthenticatedUser, id: number): Promise<string> {
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
    const [row] = await this.statements.query<{ encrypted: string | null }>(
      `SELECT signing_secret_encrypted AS encrypted FROM subscriptions ${where.where}`,
      where.params,
    );
    if (!row) return this.notFound(subscriptionNotFound(id));
    if (row.encrypted !== null) return this.secretBox.decrypt(row.encrypted);
    // COALESCE: whoever fills it first (an instance's bootstrap, another read) wins, once.
    const [filled] = await preparedQuery<{ encrypted: string }>(
      this.dataSource,
      'subscriptions_fill_signing_secret',
      `UPDATE subscriptions SET signing_secret_encrypted = COALESCE(signing_secret_encrypted, $2)
       WHERE id = $1 RETURNING signing_secret_encrypted AS encrypted`,
      [id, this.secretBox.encrypt(generateSigningSecret())],
    );
    return filled ? this.secretBox.decrypt(filled.encrypted) : this.notFound(subscriptionNotFound(id));
  }

  /**
   * Makes `key` (validated already) or a generated secret the signing secret; the one it replaces
   * keeps signing for WEBHOOK_SECRET_OVERLAP_MS (contract section 9). Returns the new secret.
   */
  async rotateSigningSecret(
    user: AuthenticatedUser,
    id: number,
    key: string = generateSigningSecret(),
  ): Promise<string> {
    const overlapMs = this.config.getOrThrow('webhook', { infer: true }).secretOverlapMs;
    const where = this.visibleTo(user).add((p) => `id = ${p}`, id);
    const n = where.params.length;
    // One statement: SET expressions see the row as it was, so the old secret moves over unread.
    const rows = await this.statements.query<{ id: number }>(
      `UPDATE subscriptions SET
         previous_signing_secret_encrypted = signing_secret_encrypted,
         previous_signing_secret_until = CASE WHEN signing_secret_encrypted IS NOT NULL
           THEN now() + $${n + 2} * interval '1 millisecond' END,
         signing_secret_encrypted = $${n + 1}
       ${where.where}
       RETURNING id`,
      [...where.params, this.secretBox.encrypt(key), overlapMs],
    );
    return rows.length > 0 ? key : this.notFound(subscriptionNotFound(id));
  }

  /**
   * Gives a signing secret to every subscription without one (rows from before migration
   * SubscriptionSigningSecrets), `batch` rows a statement. Instances starting together may both
   * run it: a row already filled is left as it is. Returns how many this call filled.
   */
  async fillMissingSigningSecrets(batch = 500): Promise<number> {
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

  /** A non-administrator sees its own tenant; an administrator every tenant, or the one it asks for. */
  private visibleTo(user: AuthenticatedUser, tenantFilter?: string): Conditions {
    const conditions = new Conditions();
    const tenant = user.isAdministrator ? tenantFilter : user.tenant;
    return tenant === undefined ? conditions : conditions.add((p) => `tenant = ${p}`, tenant);
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

  private notFound(message: string): never {
    throw new NotFoundException(message);
  }
}

/** Duplicates collapsed, first occurrence kept (contract section 5). */
const distinct = <T>(values: T[]): T[] => [...new Set(values)];
