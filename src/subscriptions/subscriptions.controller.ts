import { Body, Controller, Delete, Get, HttpCode, Param, Post, Put, Query } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../auth/authenticated-user';
import { CurrentUser } from '../auth/decorators/current-user.decorator';
import { Roles } from '../auth/decorators/roles.decorator';
import { ValidationFailedException } from '../common/errors/validation-failed.exception';
import { Page, toPage } from '../common/paging/page';
import { UserRole } from '../common/reference/enums';
import { IdParamPipe } from '../common/validation/id-param.pipe';
import { ApiCallback, LICENCE_EVENT_CALLBACK } from '../common/openapi/callbacks';
import { ApiErrors, ApiIdParam, ApiPageOf, ApiPageQuery, ApiSortQuery } from '../common/openapi/decorators';
import { CreateSubscriptionDto } from './dto/create-subscription.dto';
import { ListActiveSubscriptionsQueryDto } from './dto/list-active-subscriptions.query';
import { ListSubscriptionsQueryDto, SUBSCRIPTION_SORT_FIELDS } from './dto/list-subscriptions.query';
import {
  RotateSigningSecretDto,
  SigningSecretResponse,
  SIGNING_SECRET_EXAMPLE,
} from './dto/signing-secret.dto';
import { SubscriptionResponse, toSubscriptionResponse } from './dto/subscription.response';
import { SubscriptionSigningSecrets } from './subscription-signing-secrets.service';
import { subscriptionNotFound } from './subscription-visibility';
import { SubscriptionsService } from './subscriptions.service';

const PATH = '/webhooks/subscriptions';

/** The `tenant` filter is for administrators; anyone else gets the whitelist's 400 for it. */
function rejectTenantFilter(user: AuthenticatedUser, tenant: string | undefined): void {
  if (!user.isAdministrator && tenant !== undefined) {
    throw new ValidationFailedException([{ field: 'tenant', message: 'tenant is not a known field' }]);
  }
}

// Documentation only (OpenAPI): the codes each endpoint can answer and the examples of its body.
const FORBIDDEN: [number, string] = [
  403,
  'Not ROLE_PARTNER nor an administrator, or the account is disabled',
];
const NOT_FOUND: [number, string] = [404, 'No such subscription, or it belongs to another tenant'];
const BAD_ID: [number, string] = [400, 'id is not a positive integer'];
const ApiSubscriptionId = () => ApiIdParam('id', 'Subscription id', 1);
const SubscriptionIdPipe = new IdParamPipe(subscriptionNotFound);
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
  constructor(
    private readonly subscriptions: SubscriptionsService,
    private readonly signingSecrets: SubscriptionSigningSecrets,
  ) {}

  @ApiOperation({
    summary: 'List subscriptions',
    description:
      "ROLE_PARTNER: the subscriptions of the user's tenant. Administrators: every tenant's, or one " +
      'tenant with `tenant`.',
  })
  @ApiPageQuery()
  @ApiSortQuery(Object.keys(SUBSCRIPTION_SORT_FIELDS), 'id,asc')
  @ApiPageOf(SubscriptionResponse, 'A page of subscriptions')
  @ApiErrors([400, 'Invalid page, size, sort, index or tenant'], 401, FORBIDDEN, 429)
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
  @ApiErrors([400, 'Invalid active, page, size, sort or tenant'], 401, FORBIDDEN, 429)
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
  @ApiErrors(BAD_ID, 401, FORBIDDEN, NOT_FOUND, 429)
  @Delete(':id')
  async remove(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
  ): Promise<SubscriptionResponse> {
    return toSubscriptionResponse(await this.subscriptions.remove(user, id));
  }

  @ApiOperation({
    summary: "Get a subscription's signing secret",
    description:
      'The Standard Webhooks secret every delivery to this subscription is signed with ' +
      '(`webhook-signature`, see the `licenceEvent` callback). Each subscription has its own, ' +
      'made when it is created; it is never part of the subscription itself.',
  })
  @ApiSubscriptionId()
  @ApiOkResponse({ type: SigningSecretResponse, description: 'The current signing secret' })
  @ApiErrors(BAD_ID, 401, FORBIDDEN, NOT_FOUND, 429)
  @Get(':id/secret')
  async signingSecret(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
  ): Promise<SigningSecretResponse> {
    return { key: await this.signingSecrets.current(user, id) };
  }

  /** 200 with the new secret; the old one keeps signing for WEBHOOK_SECRET_OVERLAP_MS. */
  @ApiOperation({
    summary: "Rotate a subscription's signing secret",
    description:
      'Makes the given `key`, or a generated one, the signing secret. The previous secret keeps ' +
      'signing for 24 hours (`WEBHOOK_SECRET_OVERLAP_MS`): meanwhile every delivery carries two ' +
      'signatures, the new one first, so receivers can switch to the new secret without downtime. ' +
      'The body is optional.',
  })
  @ApiSubscriptionId()
  @ApiBody({
    type: RotateSigningSecretDto,
    required: false,
    examples: {
      generated: { summary: 'A generated secret', value: {} },
      given: { summary: 'A secret of your own', value: { key: SIGNING_SECRET_EXAMPLE } },
    },
  })
  @ApiOkResponse({ type: SigningSecretResponse, description: 'The new signing secret' })
  @ApiErrors(
    [400, 'Invalid id, `key` not whsec_ and the base64 of 24 to 64 bytes, unknown field, malformed JSON'],
    401,
    FORBIDDEN,
    NOT_FOUND,
    413,
    415,
    429,
  )
  @Post(':id/secret/rotate')
  @HttpCode(200)
  async rotateSigningSecret(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
    @Body() body: RotateSigningSecretDto, // undefined without a body
  ): Promise<SigningSecretResponse> {
    return { key: await this.signingSecrets.rotate(user, id, body?.key ?? undefined) };
  }
}
