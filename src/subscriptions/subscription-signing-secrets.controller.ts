import { Body, Controller, Get, HttpCode, Param, Post } from '@nestjs/common';
import { ApiBody, ApiOkResponse, ApiOperation, ApiTags } from '@nestjs/swagger';
import type { AuthenticatedUser } from '../common/auth/authenticated-user';
import { CurrentUser } from '../common/auth/decorators/current-user.decorator';
import { Roles } from '../common/auth/decorators/roles.decorator';
import { ApiErrors } from '../common/openapi/decorators';
import { UserRole } from '../common/reference/enums';
import {
  RotatedSigningSecretResponse,
  RotateSigningSecretDto,
  SigningSecretResponse,
  SIGNING_SECRET_EXAMPLE,
} from './dto/signing-secret.dto';
import { ApiSubscriptionId, BAD_ID, FORBIDDEN, NOT_FOUND, SubscriptionIdPipe } from './subscription-routes';
import { SubscriptionSigningSecrets } from './subscription-signing-secrets.service';

/**
 * A subscription's signing secret (contract section 9): read and rotated by whoever may see the
 * subscription, as its other routes (SubscriptionsController); others 403 (contract section 3).
 * The operation ids stay `Subscriptions_…`, as when these routes were SubscriptionsController's:
 * generated clients name their methods after them.
 */
@ApiTags('Webhook subscriptions')
@Roles(UserRole.ROLE_PARTNER)
@Controller('webhooks/subscriptions')
export class SubscriptionSigningSecretsController {
  constructor(private readonly signingSecrets: SubscriptionSigningSecrets) {}

  @ApiOperation({
    operationId: 'Subscriptions_signingSecret',
    summary: "Get a subscription's signing secret",
    description:
      'The Standard Webhooks secret every delivery to this subscription is signed with ' +
      '(`webhook-signature`, see the `licenceEvent` callback). Each subscription has its own, ' +
      'made when it is created; it is never part of the subscription itself.',
  })
  @ApiSubscriptionId()
  @ApiOkResponse({ type: SigningSecretResponse, description: 'The current signing secret' })
  @ApiErrors(
    BAD_ID,
    401,
    FORBIDDEN,
    NOT_FOUND,
    [
      409,
      'The stored secret does not open (copied from another subscription, or SECRETS_KEY changed): rotate it',
    ],
    429,
  )
  @Get(':id/secret')
  async signingSecret(
    @CurrentUser() user: AuthenticatedUser,
    @Param('id', SubscriptionIdPipe) id: number,
  ): Promise<SigningSecretResponse> {
    return { key: await this.signingSecrets.current(user, id) };
  }

  /** 200 with the new secret; the old one keeps signing for WEBHOOK_SECRET_OVERLAP_MS. */
  @ApiOperation({
    operationId: 'Subscriptions_rotateSigningSecret',
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
  @ApiOkResponse({
    type: RotatedSigningSecretResponse,
    description: 'The new signing secret, and when the previous one stops signing',
  })
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
  ): Promise<RotatedSigningSecretResponse> {
    const rotated = await this.signingSecrets.rotate(user, id, body?.key ?? undefined);
    return { key: rotated.key, previousKeyExpiresAt: rotated.previousKeyExpiresAt?.toISOString() ?? null };
  }
}
