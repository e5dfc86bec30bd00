import { Body, Controller, HttpCode, Param, Post } from '@nestjs/common';
import { ApiAcceptedResponse, ApiBody, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { CurrentUser } from '../common/auth/decorators/current-user.decorator';
import { Roles } from '../common/auth/decorators/roles.decorator';
import { ApiErrors, ApiIdParam } from '../common/openapi/decorators';
import { UserRole, WebhookEvent } from '../common/reference/enums';
import { NoBody } from '../common/validation/no-body';
import { DeliveryIdPipe } from '../deliveries/delivery-id.pipe';
import {
  ApiSubscriptionId,
  FORBIDDEN,
  NOT_FOUND,
  ParentSubscriptionIdPipe,
} from '../subscriptions/subscription-routes';
import {
  MAX_RECOVERED_EVENTS,
  RecoverDeliveriesDto,
  RecoverDeliveriesReceipt,
} from './dto/recover-deliveries.dto';
import { ResendReceipt } from './dto/resend.response';
import { TestEventDto, TestEventReceipt } from './dto/test-event.dto';
import { PartnerToolsService } from './partner-tools.service';

// Documentation only (OpenAPI).
const NOT_ACTIVE: [number, string] = [409, 'The subscription is not active'];
/** Documentation only (OpenAPI): the 429 of a partner tool's budget (contract section 8). */
const budgetSpent = (tool: string, variable: string, perMinute: number): [number, string] => [
  429,
  `This subscription's ${tool} budget is spent (${variable}, default ${perMinute} a minute), or the ` +
    "token's limit: see Retry-After (seconds)",
];

/**
 * The partner tools of contract section 9 that send something: resend one record's event, recover
 * the failed ones since a time, and the test event. ROLE_PARTNER on its own tenant, administrators
 * on every tenant; anyone else 403 (contract section 3). PartnerToolsService does the work; 202
 * means the jobs are committed. The operation
 * ids stay `Deliveries_…`, as when these routes were DeliveriesController's: generated clients name
 * their methods after them.
 */
@ApiTags('Webhook deliveries')
@Roles(UserRole.ROLE_PARTNER)
@Controller('webhooks/subscriptions/:id')
export class PartnerToolsController {
  constructor(private readonly partnerTools: PartnerToolsService) {}

  @ApiOperation({
    operationId: 'Deliveries_resend',
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
    [400, 'Invalid id or deliveryId, or a body with a field (this route takes none)'],
    401,
    FORBIDDEN,
    [404, "No such subscription (or another tenant's), or no such record of it"],
    NOT_ACTIVE,
    budgetSpent('resend', 'RATE_LIMIT_RESEND_PER_MINUTE', 60),
  )
  @Post('deliveries/:deliveryId/resend')
  @HttpCode(202)
  async resend(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParentSubscriptionIdPipe) id: number,
    @Param('deliveryId', DeliveryIdPipe) deliveryId: string,
    @NoBody() _body: undefined,
  ): Promise<ResendReceipt> {
    return this.partnerTools.resend(user, id, deliveryId);
  }

  @ApiOperation({
    operationId: 'Deliveries_recover',
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
    NOT_FOUND,
    NOT_ACTIVE,
    413,
    415,
    budgetSpent('recover', 'RATE_LIMIT_RECOVER_PER_MINUTE', 1),
  )
  @Post('recover')
  @HttpCode(202)
  async recover(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParentSubscriptionIdPipe) id: number,
    @Body() body: RecoverDeliveriesDto,
  ): Promise<RecoverDeliveriesReceipt> {
    return this.partnerTools.recover(user, id, body);
  }

  @ApiOperation({
    operationId: 'Deliveries_test',
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
    NOT_FOUND,
    413,
    415,
    budgetSpent('test event', 'RATE_LIMIT_TEST_EVENTS_PER_MINUTE', 10),
  )
  @Post('test')
  @HttpCode(202)
  async test(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', ParentSubscriptionIdPipe) id: number,
    @Body() body: TestEventDto,
  ): Promise<TestEventReceipt> {
    return this.partnerTools.sendTestEvent(user, id, body?.eventType ?? WebhookEvent.LICENCE_CREATED_SUCCESS);
  }
}
