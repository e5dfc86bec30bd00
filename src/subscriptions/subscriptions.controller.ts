import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { CurrentUser } from '../common/auth/decorators/current-user.decorator';
import { Roles } from '../common/auth/decorators/roles.decorator';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { NoBody } from '../common/validation/no-body';
import { Page, toPage } from '../common/paging/page';
import { UserRole } from '../common/reference/enums';
import { ApiCallback, LICENCE_EVENT_CALLBACK } from '../common/openapi/callbacks';
import { ApiErrors, ApiPageOf, ApiPageQuery, ApiSortQuery } from '../common/openapi/decorators';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListActiveSubscriptionsQueryDto } from './dto/list-active-subscriptions.query';
import { ListSubscriptionsQueryDto, SUBSCRIPTION_SORT_FIELDS } from './dto/list-subscriptions.query';
import { SubscriptionResponse, toSubscriptionResponse } from './dto/subscription.response';
import { ApiSubscriptionId, BAD_ID, FORBIDDEN, NOT_FOUND, SubscriptionIdPipe } from './subscription-routes';
import { SubscriptionsService } from './subscriptions.service';

const PATH = '/webhooks/subscriptions';

/** The `tenant` filter is for administrators; anyone else gets the whitelist's 400 for it. */
function rejectTenantFilter(user: AuthenticatedUser, tenant: string | undefined): void {
  if (!user.isAdministrator && tenant !== undefined) {
    throw new ValidationFailedException([{ field: 'tenant', message: 'tenant is not a known field' }]);
  }
}

// Documentation only (OpenAPI): the examples of a subscription body.
const SUBSCRIPTION_EXAMPLES = {
  subscription: {
    summary: 'Both events, with a shared-secret header',
    value: {
      name: 'Licence events to ERP',
      url: 'https://erp.acme.com/webhooks/licences',
      description: 'Activates licences in our ERP',
      events: ['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED'],
      active: true,
      headerName: 'X-Webhook-Secret',
      headerValue: 's3cret-shared-value',
    },
  },
  minimal: {
    summary: 'Required fields only',
    value: { name: 'Failures', url: 'https://ops.acme.com/hooks', events: ['LICENCE_CREATED_FAILED'] },
  },
};

/** ROLE_PARTNER on its own tenant, administrators on every tenant; others 403 (contract section 3). */
@ApiTags('Webhook subscriptions')
@Roles(UserRole.ROLE_PARTNER)
@Controller('webhooks/subscriptions')
export class SubscriptionsController {
  constructor(private readonly subscriptions: SubscriptionsService) {}

  @ApiOperation({
    summary: 'List subscriptions',
    description:
      "ROLE_PARTNER: the subscriptions of the user's tenant. Administrators: every tenant's, or one " +
      'tenant with `tenant`. `health` keeps those of one health status.',
  })
  @ApiPageQuery()
  @ApiSortQuery(Object.keys(SUBSCRIPTION_SORT_FIELDS), 'id,asc')
  @ApiPageOf(SubscriptionResponse, 'A page of subscriptions')
  @ApiErrors([400, 'Invalid page, size, sort, index, tenant or health'], 401, FORBIDDEN, 429)
  @Get()
  async list(
    @CurrentUser() user: AuthenticatedUser,
    @Query() query: ListSubscriptionsQueryDto,
  ): Promise<Page<SubscriptionResponse>> {
    rejectTenantFilter(user, query.tenant);
    const [items, total] = await this.subscriptions.list(user, query);
    return toPage(items.map(toSubscriptionResponse), total, query.page, query.size, PATH, {
      sort: query.sort,
      index: query.index,
      tenant: query.tenant,
      health: query.health,
    });
  }

  // Declared before ':id', so "active" is never read as an id.
  @ApiOperation({
    summary: 'List subscriptions by active flag',
    description:
      'The active subscriptions (or, with `active=false`, the inactive ones); `sort` as on the main list.',
  })
  @ApiPageQuery()
  @ApiSortQuery(Object.keys(SUBSCRIPTION_SORT_FIELDS), 'id,asc')
  @ApiPageOf(SubscriptionResponse, 'A page of subscriptions')
  @ApiErrors([400, 'Invalid active, health, page, size, sort or tenant'], 401, FORBIDDEN, 429)
  @Get('active')
  async listActive(
    @CurrentUser() user: AuthenticatedUser,
    @Query() query: ListActiveSubscriptionsQueryDto,
  ): Promise<Page<SubscriptionResponse>> {
    rejectTenantFilter(user, query.tenant);
    const [items, total] = await this.subscriptions.listActive(user, query);
    return toPage(items.map(toSubscriptionResponse), total, query.page, query.size, `${PATH}/active`, {
      sort: query.sort,
      active: query.active,
      tenant: query.tenant,
      health: query.health,
    });
  }

  @ApiOperation({ summary: 'Get a subscription' })
  @ApiSubscriptionId()
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The subscription' })
  @ApiErrors(BAD_ID, 401, FORBIDDEN, NOT_FOUND, 429)
  @Get(':id')
  async get(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
  ): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(await this.subscriptions.findVisible(user, id));
  }

  /** 200, not 201 (spec, POST /webhooks/subscriptions). */
  @ApiOperation({
    summary: 'Create a subscription',
    description:
      'Answers 200 (not 201) with the created subscription. From then on, each licence event of ' +
      'the tenant listed in `events` is POSTed to `url` while the subscription is active: see the ' +
      '`licenceEvent` callback for the body receivers get and how they should answer.',
  })
  @ApiBody({ type: CreateSubscriptionDto, examples: SUBSCRIPTION_EXAMPLES })
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The created subscription, with its id' })
  @ApiErrors(
    [400, 'Required fields missing or invalid (`errors` names them), unknown field, malformed JSON'],
    401,
    FORBIDDEN,
    413,
    415,
    429,
  )
  @ApiCallback(LICENCE_EVENT_CALLBACK, '{$request.body#/url}')
  @Post()
  @HttpCode(200)
  async create(
    @CurrentUser() user: AuthenticatedUser,
    @Body() body: CreateSubscriptionDto,
  ): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(await this.subscriptions.create(user, body));
  }

  @ApiOperation({
    summary: 'Replace a subscription',
    description:
      'Same fields and rules as create. `active` left out keeps its value; `headerValue` left out ' +
      'with the same `headerName` keeps the stored value.',
  })
  @ApiSubscriptionId()
  @ApiBody({ type: CreateSubscriptionDto, examples: SUBSCRIPTION_EXAMPLES })
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The complete subscription' })
  @ApiErrors(
    [400, 'Invalid request: invalid id, required fields missing or invalid, unknown field'],
    401,
    FORBIDDEN,
    NOT_FOUND,
    413,
    415,
    429,
  )
  @Put(':id')
  async replace(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Body() body: CreateSubscriptionDto,
  ): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(await this.subscriptions.replace(user, id, body));
  }

  @ApiOperation({
    summary: 'Delete a subscription',
    description: 'Its pending deliveries are dropped and its delivery history goes with it.',
  })
  @ApiSubscriptionId()
  @ApiOkResponse({ type: SubscriptionResponse, description: 'The deleted subscription' })
  @ApiErrors(
    [400, `${BAD_ID[1]}, or a body with a field (this route takes none)`],
    401,
    FORBIDDEN,
    NOT_FOUND,
    429,
  )
  @Delete(':id')
  async remove(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @NoBody() _body: undefined,
  ): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(await this.subscriptions.remove(user, id));
  }
}
