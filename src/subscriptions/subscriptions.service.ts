import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource, QueryRunner } from 'typeorm';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import type { Conditions } from '../common/paging/conditions';
import { parseSort, SortOrder, totalOrder } from '../common/paging/sort';
import { SecretBox } from '../common/crypto/secret-box';
import type { AppConfig } from '../config/configuration';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListActiveSubscriptionsQueryDto } from './dto/list-active-subscriptions.query';
import { ListSubscriptionsQueryDto, SUBSCRIPTION_SORT_FIELDS } from './dto/list-subscriptions.query';
import { HEALTH_STATUS_SQL, SubscriptionHealthStatus } from './dto/subscription-health';
import type { SubscriptionRecord } from './dto/subscription.response';
import { generateSigningSecret } from './signing-secret';
import { checkUrlAllowed, distinct, tenantFromBody } from './subscription-body-rules';
import { sealedIn } from './sealed-columns';
import { SubscriptionReplacement, SubscriptionsRepository } from './subscriptions.repository';
import { subscriptionNotFound, visibleTo } from './subscription-visibility';

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
    private readonly subscriptions: SubscriptionsRepository,
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
    return (await this.subscriptions.findOne(where)) ?? this.notFound(notFound);
  }

  async create(user: AuthenticatedUser, body: CreateSubscriptionDto): Promise<SubscriptionRecord> {
    const tenant = (user.isAdministrator ? tenantFromBody(body.tenant) : undefined) ?? user.tenant;
    checkUrlAllowed(body.url, this.allowPrivateNetworks);
    const headerName = body.headerName ?? null;
    const headerValue = headerName !== null && typeof body.headerValue === 'string' ? body.headerValue : null;
    const created = await this.dataSource.transaction(async (manager) => {
      const runner = manager.queryRunner!;
      // Taken before the lock, which the tenant's other creates wait for: a sequence needs none.
      const id = await this.subscriptions.nextId(runner);
      await this.subscriptions.lockTenant(runner, tenant);
      // Inserted only while the tenant has room, counted after the lock.
      const row = {
        id,
        tenant,
        active: body.active ?? true,
        name: body.name,
        url: body.url,
        description: body.description ?? null,
        events: distinct(body.events),
        headerName,
        headerValueSealed:
          headerValue === null ? null : this.secretBox.seal(headerValue, sealedIn.headerValue(id)),
        signingSecretSealed: this.secretBox.seal(generateSigningSecret(), sealedIn.signingSecret(id)),
        maxDeliveriesPerSecond: body.maxDeliveriesPerSecond ?? null,
      };
      return this.subscriptions.insertWhileRoom(runner, row, this.perTenantMax);
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
    const to: SubscriptionReplacement = {
      name: body.name,
      url: body.url,
      description: body.description ?? null,
      events: distinct(body.events),
      active: body.active ?? null,
      tenant,
      headerName,
      headerMode,
      headerValueSealed:
        headerMode === 'set'
          ? this.secretBox.seal(body.headerValue as string, sealedIn.headerValue(id))
          : null,
      // Left out: unchanged (an older client's PUT never lifts a limit it does not know of).
      keepRate: body.maxDeliveriesPerSecond === undefined,
      maxDeliveriesPerSecond: body.maxDeliveriesPerSecond ?? null,
    };
    const row = await this.mutateOne(
      (runner) => this.subscriptions.replace(runner, where, to),
      tenant === null ? undefined : { id, tenant },
    );
    return row ?? this.notFound(subscriptionNotFound(id));
  }

  /** 200 with the subscription as it was; its jobs and deliveries go with it (a trigger). */
  async remove(user: AuthenticatedUser, id: number): Promise<SubscriptionRecord> {
    const where = visibleTo(user).add((p) => `id = ${p}`, id);
    const row = await this.mutateOne((runner) => this.subscriptions.remove(runner, where));
    return row ?? this.notFound(subscriptionNotFound(id));
  }

  private page(
    where: Conditions,
    query: { sort?: string[]; page: bigint; size: number },
  ): Promise<[SubscriptionRecord[], number]> {
    return this.subscriptions.page(where, orderOf(query.sort), query.page, query.size);
  }

  /**
   * `change` (an UPDATE/DELETE … RETURNING) in a transaction.
   * `movable`: the id of a subscription an administrator's PUT may move to another tenant. Its row
   * is locked first (FOR UPDATE: publishes of the old tenant that matched it commit before, later
   * ones wait and then see the new tenant), and if the tenant changes, the old tenant's pending
   * deliveries and history go (the database's trigger), as on DELETE: the events of one tenant
   * never reach, nor show to, another.
   */
  private async mutateOne(
    change: (runner: QueryRunner) => Promise<SubscriptionRecord | undefined>,
    movable?: { id: number; tenant: string },
  ): Promise<SubscriptionRecord | undefined> {
    return this.dataSource.transaction(async (manager) => {
      const runner = manager.queryRunner!;
      if (movable !== undefined) {
        await this.subscriptions.lockForMove(runner, movable.id);
        await this.checkRoomToMoveIn(runner, movable.id, movable.tenant);
      }
      // A tenant change drops its jobs and history in this transaction (a trigger: migration
      // SubscriptionMoveClearsItsHistory), as a DELETE does (DispatchReferencesByStatements).
      return change(runner);
    });
  }

  /** A subscription moved to another tenant counts against that tenant's limit, as a create does. */
  private async checkRoomToMoveIn(runner: QueryRunner, id: number, tenant: string): Promise<void> {
    await this.subscriptions.lockTenant(runner, tenant);
    const { stays, count } = await this.subscriptions.tenantOf(runner, id, tenant);
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
