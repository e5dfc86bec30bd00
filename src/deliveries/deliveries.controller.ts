import { Controller, Get, Param, Query } from '@nestjs/common';
import { ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { CurrentUser } from '../auth/decorators/current-user.decorator';
import { Roles } from '../auth/decorators/roles.decorator';
import { Page, toPage } from '../common/paging/page';
import { UserRole } from '../common/reference/enums';
import { IdParamPipe } from '../common/validation/id-param.pipe';
import { ApiErrors, ApiIdParam, ApiPageOf, ApiPageQuery, ApiSortQuery } from '../common/openapi/decorators';
import { subscriptionNotFound, SubscriptionsService } from '../subscriptions/subscriptions.service';
import { DeliveriesService } from './deliveries.service';
import { DeliveryIdPipe } from './delivery-id.pipe';
import { DeliveryResponse, toDeliveryResponse } from './dto/delivery.response';
import { DELIVERY_SORT_FIELDS, ListDeliveriesQueryDto } from './dto/list-deliveries.query';

// Documentation only (OpenAPI).
const FORBIDDEN: [number, string] = [
  403,
  'Not ROLE_PARTNER nor an administrator, or the account is disabled',
];
const ApiSubscriptionId = () => ApiIdParam('id', 'Subscription id', 1);
// Routes under a subscription: its 404 without the id (subscriptionNotFound).
const SubscriptionIdPipe = new IdParamPipe(() => subscriptionNotFound());

/**
 * GET /webhooks/subscriptions/{id}/deliveries: one record per attempt, newest first unless `sort`
 * says otherwise. ROLE_PARTNER on its own tenant, administrators on every tenant; anyone else 403
 * (contract section 3).
 */
@ApiTags('Webhook deliveries')
@Roles(UserRole.ROLE_PARTNER)
@Controller('webhooks/subscriptions/:id/deliveries')
export class DeliveriesController {
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly deliveries: DeliveriesService,
  ) {}

  @ApiOperation({
    summary: 'Delivery history of a subscription',
    description:
      'One record per delivery attempt, newest first unless `sort` says otherwise. A FAILED ' +
      'delivery is not resent; its `httpStatusCode` and `errorMessage` say why (a receiver refusing ' +
      'a request shows up here). Ties in `sort` are broken by `sentAt` (newest first unless `sort` ' +
      'names it), then `id` in the same direction; a null `httpStatusCode` sorts after every code ' +
      'ascending, before them descending.',
  })
  @ApiSubscriptionId()
  @ApiPageQuery()
  @ApiSortQuery(Object.keys(DELIVERY_SORT_FIELDS), 'sentAt,desc then id,desc (newest first)')
  @ApiPageOf(DeliveryResponse, 'A page of delivery records')
  @ApiErrors(
    [400, 'Invalid id, page, size or sort'],
    401,
    FORBIDDEN,
    [404, 'No such subscription, or it belongs to another tenant'],
    429,
  )
  @Get()
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Query() query: ListDeliveriesQueryDto,
  ): Promise<Page<DeliveryResponse>> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    const [records, total] = await this.deliveries.list(id, query.sort, query.page, query.size);
    return toPage(
      records.map((r) => toDeliveryResponse(r, subscription.name)),
      total,
      query.page,
      query.size,
      `/webhooks/subscriptions/${id}/deliveries`,
      { sort: query.sort },
    );
  }

  /** One record: the target of each record's `self` link. */
  @ApiOperation({ summary: 'One delivery record', description: "The target of each record's `self` link." })
  @ApiSubscriptionId()
  @ApiIdParam('deliveryId', 'Delivery record id', 10, true)
  @ApiOkResponse({ type: DeliveryResponse, description: 'The delivery record' })
  @ApiErrors(
    [400, 'Invalid id or deliveryId'],
    401,
    FORBIDDEN,
    [404, "No such subscription (or another tenant's), or no such record of it"],
    429,
  )
  @Get(':deliveryId')
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Param('deliveryId', DeliveryIdPipe) deliveryId: string,
  ): Promise<DeliveryResponse> {
    const subscription = await this.subscriptions.findVisible(user, id, subscriptionNotFound());
    return toDeliveryResponse(await this.deliveries.get(id, deliveryId), subscription.name);
  }
}
