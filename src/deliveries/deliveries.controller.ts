import { Controller, Get, NotFoundException, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { CurrentUser } from '../common/auth/decorators/current-user.decorator';
import { Roles } from '../common/auth/decorators/roles.decorator';
import { Page, toPage } from '../common/paging/page';
import { UserRole } from '../common/reference/enums';
import { ApiErrors, ApiIdParam, ApiPageOf, ApiPageQuery, ApiSortQuery } from '../common/openapi/decorators';
import {
  ApiSubscriptionId,
  FORBIDDEN,
  NOT_FOUND,
  ParentSubscriptionIdPipe,
} from '../subscriptions/subscription-routes';
import { subscriptionNotFound } from '../subscriptions/subscription-visibility';
import { SubscriptionsService } from '../subscriptions/subscriptions.service';
import { DeliveryHistory, DeliveryFilters } from './delivery-history.repository';
import { DeliveryIdPipe } from './delivery-id.pipe';
import { DeliveryDetailResponse, DeliveryResponse, toDeliveryResponse } from './dto/delivery.response';
import { parseInstant } from '../common/validation/instant';
import { DELIVERY_SORT_FIELDS, ListDeliveriesQueryDto } from './dto/list-deliveries.query';

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
 * `sort` says otherwise) and a record's detail, the first of the partner tools of contract section 9
 * (the others: PartnerToolsController). ROLE_PARTNER on its own tenant, administrators on every
 * tenant; anyone else 403 (contract section 3). The body sent is read with the record, from the
 * event it belongs to (webhook_events, written by the dispatcher's outbox).
 */
@ApiTags('Webhook deliveries')
@Roles(UserRole.ROLE_PARTNER)
@Controller('webhooks/subscriptions/:id')
export class DeliveriesController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly deliveries: DeliveryHistory,
  ) {}

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
    NOT_FOUND,
    429,
  )
  @Get('deliveries')
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParentSubscriptionIdPipe) id: number,
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
    @Param('id', ParentSubscriptionIdPipe) id: number,
    @Param('deliveryId', DeliveryIdPipe) deliveryId: string,
  ): Promise<DeliveryDetailResponse> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const { payload, ...record } = await this.deliveries.getWithPayload(id, deliveryId);
    // Retention deletes an event with its records: gone together unless it ran in between.
    if (payload === null) throw new NotFoundException('Delivery not found');
    return { ...toDeliveryResponse(record, subscription.name), payload: JSON.parse(payload) as unknown };
  }
}
