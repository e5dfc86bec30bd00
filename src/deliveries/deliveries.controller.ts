import {
  Body,
  ConflictException,
  Controller,
  Get,
  HttpCode,
  NotFoundException,
  Param,
  Post,
  Query,
} from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ApiAcceptedResponse, ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { CurrentUser } from '../auth/decorators/current-user.decorator';
import { Roles } from '../auth/decorators/roles.decorator';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { Page, toPage } from '../common/paging/page';
import { DeliveryTrigger, UserRole, WebhookEvent } from '../common/reference/enums';
import { IdParamPipe } from '../common/validation/id-param.pipe';
import { ApiErrors, ApiIdParam, ApiPageOf, ApiPageQuery, ApiSortQuery } from '../common/openapi/decorators';
import type { AppConfig } from '../config/configuration';
import { WebhookOutbox } from '../dispatcher/webhook-outbox.service';
import type { SubscriptionRecord } from '../subscriptions/dto/subscription.response';
import { subscriptionNotFound } from '../subscriptions/subscription-visibility';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { DeliveriesService, DeliveryFilters } from './deliveries.service';
import { DeliveryIdPipe } from './delivery-id.pipe';
import { DeliveryDetailResponse, DeliveryResponse, toDeliveryResponse } from './dto/delivery.response';
import { parseInstant } from './dto/instant';
import { DELIVERY_SORT_FIELDS, ListDeliveriesQueryDto } from './dto/list-deliveries.query';
import {
  MAX_RECOVERED_EVENTS,
  RecoverDeliveriesDto,
  RecoverDeliveriesReceipt,
} from './dto/recover-deliveries.dto';
import { ResendReceipt } from './dto/resend.response';
import { TestEventDto, TestEventReceipt } from './dto/test-event.dto';

// Documentation only (OpenAPI).
const FORBIDDEN: [number, string] = [
  403,
  'Not ROLE_PARTNER nor an administrator, or the account is disabled',
];
const ApiSubscriptionId = () => ApiIdParam('id', 'Subscription id', 1);
// Routes under a subscription: its 404 without the id (subscriptionNotFound).
const SubscriptionIdPipe = new IdParamPipe(() => subscriptionNotFound());
const NOT_ACTIVE: [number, string] = [409, 'The subscription is not active'];
const DAY_MS = 24 * 60 * 60 * 1000;

/** Resend and recover go to active subscriptions only (contract section 9). */
function requireActive(subscription: SubscriptionRecord): void {
  if (!subscription.active) {
    throw new ConflictException(`Subscription ${subscription.id} is not active: activate it first`);
  }
}

/** The filters given in the query, converted; undefined when there are none. */
function filtersOf(query: ListDeliveriesQueryDto): DeliveryFilters {
  return {
    status: query.status,
    eventType: query.eventType,
    trigger: query.trigger,
    since: query.since === undefined ? undefined : parseInstant(query.since),
    until: query.until === undefined ? undefined : parseInstant(query.until),
  };
}

/**
 * A subscription's delivery history (GET …/deliveries: one record per attempt, newest first unless
 * `sort` says otherwise) and the partner tools of contract section 9: a record's detail, resend,
 * recover and the test event. ROLE_PARTNER on its own tenant, administrators on every tenant;
 * anyone else 403 (contract section 3). Resend, recover and test enqueue through the dispatcher's
 * outbox (it owns webhook_events and webhook_jobs): 202 means the jobs are committed.
 */
@ApiTags('Webhook deliveries')
@Roles(UserRole.ROLE_PARTNER)
@Controller('webhooks/subscriptions/:id')
export class DeliveriesController {
  private readonly retentionDays: number;

  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly deliveries: DeliveriesService,
    private readonly outbox: WebhookOutbox,
    config: ConfigService<AppConfig, true>,
  ) {
    this.retentionDays = config.getOrThrow('retention', { infer: true }).days;
  }

  @ApiOperation({
    summary: 'Delivery history of a subscription',
    description:
      'One record per delivery attempt, newest first unless `sort` says otherwise. A FAILED ' +
      'delivery is not resent; its `httpStatusCode` and `errorMessage` say why (a receiver refusing ' +
      'a request shows up here). Ties in `sort` are broken by `sentAt` (newest first unless `sort` ' +
      'names it), then `id` in the same direction; a null `httpStatusCode` (or `durationMs`) sorts ' +
      'after every value ascending, before them descending. The filters `status`, `eventType`, ' +
      '`trigger`, `since` and `until` (on `sentAt`: `since` inclusive, `until` exclusive) combine ' +
      'with each other, paging and sort; the page links keep them.',
  })
  @ApiSubscriptionId()
  @ApiPageQuery()
  @ApiSortQuery(Object.keys(DELIVERY_SORT_FIELDS), 'sentAt,desc then id,desc (newest first)')
  @ApiPageOf(DeliveryResponse, 'A page of delivery records')
  @ApiErrors(
    [400, 'Invalid id, page, size, sort or filter (`errors` names it)'],
    401,
    FORBIDDEN,
    [404, 'No such subscription, or it belongs to another tenant'],
    429,
  )
  @Get('deliveries')
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<Page<DeliveryResponse>> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const [records, total] = await this.deliveries.list(
      id,
      filtersOf(query),
      query.sort,
      query.page,
      query.size,
    );
    const { status, eventType, trigger, since, until, sort } = query;
    return toPage(
      records.map((r) => toDeliveryResponse(r, subscription.name)),
      total,
      query.page,
      query.size,
      `/webhooks/subscriptions/${id}/deliveries`,
      { status, eventType, trigger, since, until, sort },
    );
  }

  /** One record with its payload: the target of each record's `self` link. */
  @ApiOperation({
    summary: 'One delivery record, with the body sent',
    description:
      "The target of each record's `self` link: the record, and `payload`, the exact body that was " +
      'sent (the same on every attempt of the event).',
  })
  @ApiSubscriptionId()
  @ApiIdParam('deliveryId', 'Delivery record id', 10, true)
  @ApiOkResponse({ type: DeliveryDetailResponse, description: 'The delivery record and its payload' })
  @ApiErrors(
    [400, 'Invalid id or deliveryId'],
    401,
    FORBIDDEN,
    [404, "No such subscription (or another tenant's), or no such record of it"],
    429,
  )
  @Get('deliveries/:deliveryId')
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Param('deliveryId', DeliveryIdPipe) deliveryId: string,
  ): Promise<DeliveryDetailResponse> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const record = await this.deliveries.get(id, deliveryId);
    const payload = await this.outbox.payloadOf(record.eventId);
    // Retention deletes an event with its records: gone together unless it ran in between.
    if (payload === undefined) throw new NotFoundException('Delivery not found');
    return { ...toDeliveryResponse(record, subscription.name), payload: JSON.parse(payload) as unknown };
  }

  @ApiOperation({
    summary: 'Resend one delivery',
    description:
      'Sends the event of this record again, as a new attempt (`trigger` RESEND): the same body, ' +
      'byte for byte, and the same `webhook-id`, to the subscription’s current URL and custom ' +
      'header. The record itself stays as it is. 202 once the attempt is committed; it happens ' +
      'afterwards (see the history). An event that already has an attempt pending for this ' +
      'subscription is not queued twice. Never automatic: nothing is resent unless asked.',
  })
  @ApiSubscriptionId()
  @ApiIdParam('deliveryId', 'Delivery record id', 10, true)
  @ApiAcceptedResponse({ type: ResendReceipt, description: 'The resend is queued (committed)' })
  @ApiErrors(
    [400, 'Invalid id or deliveryId'],
    401,
    FORBIDDEN,
    [404, "No such subscription (or another tenant's), or no such record of it"],
    NOT_ACTIVE,
    429,
  )
  @Post('deliveries/:deliveryId/resend')
  @HttpCode(202)
  async resend(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Param('deliveryId', DeliveryIdPipe) deliveryId: string,
  ): Promise<ResendReceipt> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const record = await this.deliveries.get(id, deliveryId);
    requireActive(subscription);
    await this.outbox.enqueueAgain(id, [record.eventId], DeliveryTrigger.RESEND);
    return { eventId: Number(record.eventId), subscriptionId: id };
  }

  @ApiOperation({
    summary: 'Recover failed deliveries since a time',
    description:
      'Sends again (`trigger` RECOVER) every event whose latest attempt for this subscription ' +
      'FAILED with its `sentAt` in [`since`, `until`), and that has no attempt pending: each once, ' +
      `oldest first, at most ${MAX_RECOVERED_EVENTS} a call (call again for more). An event whose ` +
      'latest attempt succeeded is left alone; two recoveries at once queue an event once. `since` ' +
      'reaches back at most RETENTION_DAYS (default 30). 202 once the attempts are committed.',
  })
  @ApiSubscriptionId()
  @ApiBody({
    type: RecoverDeliveriesDto,
    examples: {
      sinceYesterday: {
        summary: 'Everything that failed since a time',
        value: { since: '2026-11-20T08:00:00.000Z' },
      },
      window: {
        summary: 'A window (until exclusive)',
        value: { since: '2026-11-20T08:00:00.000Z', until: '2026-11-20T12:00:00.000Z' },
      },
    },
  })
  @ApiAcceptedResponse({ type: RecoverDeliveriesReceipt, description: 'The events are queued (committed)' })
  @ApiErrors(
    [400, 'Invalid id, since or until; since older than RETENTION_DAYS, or not before until'],
    401,
    FORBIDDEN,
    [404, 'No such subscription, or it belongs to another tenant'],
    NOT_ACTIVE,
    413,
    415,
    429,
  )
  @Post('recover')
  @HttpCode(202)
  async recover(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Body() body: RecoverDeliveriesDto,
  ): Promise<RecoverDeliveriesReceipt> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const now = Date.now();
    const since = parseInstant(body.since)!;
    const until = body.until === undefined ? new Date(now) : parseInstant(body.until)!;
    if (since.getTime() < now - this.retentionDays * DAY_MS) {
      throw new ValidationFailedException([
        { field: 'since', message: `since must be at most ${this.retentionDays} days back (RETENTION_DAYS)` },
      ]);
    }
    if (since >= until) {
      throw new ValidationFailedException([{ field: 'until', message: 'until must be after since' }]);
    }
    requireActive(subscription);
    const eventIds = await this.deliveries.failedEvents(id, since, until, MAX_RECOVERED_EVENTS);
    return { events: await this.outbox.enqueueAgain(id, eventIds, DeliveryTrigger.RECOVER) };
  }

  @ApiOperation({
    summary: 'Send a test event',
    description:
      'A sample event for the subscription’s tenant (LICENCE_CREATED_SUCCESS by default: a licence ' +
      'whose `code` starts with `TEST-`; LICENCE_CREATED_FAILED: an error whose `type` is ' +
      '`TestEvent`), delivered, signed and recorded like any other with `trigger` TEST, to this ' +
      'subscription only, active or not. No other subscription sees it. 202 once it is committed.',
  })
  @ApiSubscriptionId()
  @ApiBody({
    type: TestEventDto,
    required: false,
    examples: {
      success: { summary: 'A sample licence (the default)', value: {} },
      failed: { summary: 'A sample failure', value: { eventType: WebhookEvent.LICENCE_CREATED_FAILED } },
    },
  })
  @ApiAcceptedResponse({ type: TestEventReceipt, description: 'The test event is queued (committed)' })
  @ApiErrors(
    [400, 'Invalid id or eventType'],
    401,
    FORBIDDEN,
    [404, 'No such subscription, or it belongs to another tenant'],
    413,
    415,
    429,
  )
  @Post('test')
  @HttpCode(202)
  async test(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Body() body: TestEventDto,
  ): Promise<TestEventReceipt> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const eventType = body?.eventType ?? WebhookEvent.LICENCE_CREATED_SUCCESS;
    const eventId = await this.outbox.enqueueTest(subscription, eventType);
    if (eventId === undefined) throw new NotFoundException(subscriptionNotFound());
    return { eventId };
  }
}
