import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { halLinks, HalLinks, HalLink } from '../../common/hal/hal';
import { MAX_OBSERVATIONS_LENGTH, MAX_STRING_LENGTH, WebhookEvent } from '../../common/reference/enums';
import { ApiDateTime } from '../../common/openapi/schemas';
import type { Subscription } from '../subscription.entity';
import { SubscriptionHealth, toSubscriptionHealth } from './subscription-health';

/** What the service reads: never the encrypted header value nor the signing secrets. */
export type SubscriptionRecord = Omit<
  Subscription,
  | 'headerValueEncrypted'
  | 'signingSecretEncrypted'
  | 'previousSigningSecretEncrypted'
  | 'previousSigningSecretUntil'
>;

/** HAL links of a subscription (documentation only). */
@ApiSchema({ name: 'SubscriptionLinks' })
export class SubscriptionLinks {
  @ApiProperty({
    type: HalLink,
    description: 'The subscription',
    example: { href: '/webhooks/subscriptions/1' },
  })
  self: HalLink;
  @ApiProperty({
    type: HalLink,
    description: 'Its delivery history',
    example: { href: '/webhooks/subscriptions/1/deliveries' },
  })
  deliveries: HalLink;
}

/** A subscription as every endpoint returns it; headerValue is write-only (contract section 5). */
@ApiSchema({
  name: 'Subscription',
  description: 'A webhook subscription. headerValue is write-only and never returned.',
})
export class SubscriptionResponse {
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Identifier (assigned)', example: 1 }) id: number;
  @ApiProperty({
    type: String,
    description: 'Tenant the subscription belongs to (assigned)',
    example: 'acme',
  })
  tenant: string;
  @ApiProperty({ type: Boolean, description: 'Deliveries go to active subscriptions only', example: true })
  active: boolean;
  @ApiProperty({
    type: String,
    maxLength: MAX_STRING_LENGTH,
    description: 'Identifying name',
    example: 'Licence events to ERP',
  })
  name: string;
  @ApiProperty({
    type: String,
    format: 'uri',
    maxLength: MAX_STRING_LENGTH,
    description: 'Receiver URL (https)',
    example: 'https://erp.acme.com/webhooks/licences',
  })
  url: string;
  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: MAX_OBSERVATIONS_LENGTH,
    description: 'Optional text',
    example: 'Activates licences in our ERP',
  })
  description: string | null;
  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    isArray: true,
    description: 'Events delivered to this subscription',
    example: [WebhookEvent.LICENCE_CREATED_SUCCESS],
  })
  events: WebhookEvent[];
  @ApiProperty({
    type: String,
    nullable: true,
    description: 'Custom header sent with every delivery (its value is never returned)',
    example: 'X-Webhook-Secret',
  })
  headerName: string | null;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 1,
    maximum: 1000,
    description: 'At most this many deliveries start per second, across all instances (null: no limit)',
    example: null,
  })
  maxDeliveriesPerSecond: number | null;
  @ApiProperty({ type: SubscriptionHealth, description: 'What its recorded attempts say of its receiver' })
  health: SubscriptionHealth;
  @ApiDateTime('When it was created (assigned)')
  createdAt: string;
  @ApiDateTime('When it was last changed (assigned)')
  updatedAt: string;
  @ApiProperty({ type: SubscriptionLinks, description: 'HAL links' }) _links: HalLinks;
}

export function toSubscriptionResponse(subscription: SubscriptionRecord): SubscriptionResponse {
  return {
    id: subscription.id,
    tenant: subscription.tenant,
    active: subscription.active,
    name: subscription.name,
    url: subscription.url,
    description: subscription.description ?? null,
    events: subscription.events,
    headerName: subscription.headerName ?? null,
    maxDeliveriesPerSecond: subscription.maxDeliveriesPerSecond ?? null,
    health: toSubscriptionHealth(subscription),
    createdAt: subscription.createdAt.toISOString(),
    updatedAt: subscription.updatedAt.toISOString(),
    _links: halLinks({
      self: `/webhooks/subscriptions/${subscription.id}`,
      deliveries: `/webhooks/subscriptions/${subscription.id}/deliveries`,
    }),
  };
}
