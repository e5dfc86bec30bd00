import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { halLinks, HalLink, HalLinks } from '../../common/hal/hal';
import { DeliveryStatus, DeliveryTrigger, WebhookEvent } from '../../common/reference/enums';
import { ApiDateTime } from '../../common/openapi/schemas';
import { LicenceEventPayloadSchema, SUCCESS_EVENT_EXAMPLE } from '../../licence-events/licence-event.openapi';
import type { DeliveryRecord } from '../delivery-history.repository';

/** HAL links of a delivery record (documentation only). */
@ApiSchema({ name: 'DeliveryLinks' })
export class DeliveryLinks {
  @ApiProperty({
    type: HalLink,
    description: 'This record',
    example: { href: '/webhooks/subscriptions/1/deliveries/10' },
  })
  self: HalLink;
  @ApiProperty({
    type: HalLink,
    description: 'Its subscription',
    example: { href: '/webhooks/subscriptions/1' },
  })
  subscription: HalLink;
  @ApiProperty({
    type: HalLink,
    description: 'POST here to send the same event again (RESEND)',
    example: { href: '/webhooks/subscriptions/1/deliveries/10/resend' },
  })
  resend: HalLink;
}

/** A webhook delivery record (spec, Resources: Webhook delivery record). */
@ApiSchema({
  name: 'Delivery',
  description: 'One delivery attempt. A FAILED delivery is never resent automatically.',
})
export class DeliveryResponse {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1, description: 'Identifier', example: 10 })
  id: number;
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: 'Id of the event delivered: its `webhook-id`, the same on every attempt of it',
    example: 1001,
  })
  eventId: number;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'Id of the subscription', example: 1 })
  subscriptionId: number;
  @ApiProperty({ type: String, description: 'Name of the subscription', example: 'Licence events to ERP' })
  subscriptionName: string;
  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    description: 'Event kind delivered',
    example: WebhookEvent.LICENCE_CREATED_SUCCESS,
  })
  eventType: WebhookEvent;
  @ApiProperty({
    enum: DeliveryStatus,
    enumName: 'DeliveryStatus',
    description:
      'SUCCESS: the receiver answered 2xx in time. FAILED: non-2xx (redirects are not followed), ' +
      'time-out, connection, DNS or TLS failure, or a non-public address',
    example: DeliveryStatus.SUCCESS,
  })
  status: DeliveryStatus;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 100,
    maximum: 599,
    description: 'HTTP status returned by the receiver; null when no response arrived',
    example: 200,
  })
  httpStatusCode: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    description:
      'Why the delivery FAILED (e.g. `HTTP 500 Internal Server Error`, `timed out after 30000 ms`); null on SUCCESS',
    example: null,
  })
  errorMessage: string | null;
  @ApiProperty({
    enum: DeliveryTrigger,
    enumName: 'DeliveryTrigger',
    description:
      'What made this attempt: EVENT (a published event), RESEND (of one record), RECOVER ' +
      '(a recovery of failed events) or TEST (a test event)',
    example: DeliveryTrigger.EVENT,
  })
  trigger: DeliveryTrigger;
  @ApiProperty({
    type: 'integer',
    nullable: true,
    minimum: 0,
    description:
      "Milliseconds from the request's start to the end of the answer or the failure; null when " +
      'nothing was sent (a non-public destination, an undecryptable custom header)',
    example: 132,
  })
  durationMs: number | null;
  @ApiProperty({
    type: String,
    nullable: true,
    maxLength: 1024,
    description:
      "The first 1,024 bytes of the receiver's answer as UTF-8 text (cut on a character boundary); " +
      'null when no answer arrived',
    example: '{"received":true}',
  })
  responseBody: string | null;
  @ApiDateTime('Time of sending', '2026-11-21T10:00:00.120Z')
  sentAt: string;
  @ApiDateTime('Record creation time', '2026-11-21T10:00:00.250Z')
  createdAt: string;
  @ApiProperty({ type: DeliveryLinks, description: 'HAL links' }) _links: HalLinks;
}

/** One record with the exact body that was sent (GET …/deliveries/{deliveryId}). */
@ApiSchema({
  name: 'DeliveryDetail',
  description: 'One delivery attempt with the exact body that was sent',
})
export class DeliveryDetailResponse extends DeliveryResponse {
  @ApiProperty({
    type: LicenceEventPayloadSchema,
    description: 'The body sent, as sent (the same for every attempt of the event)',
    example: SUCCESS_EVENT_EXAMPLE,
  })
  payload: unknown;
}

export function toDeliveryResponse(delivery: DeliveryRecord, subscriptionName: string): DeliveryResponse {
  const subscription = `/webhooks/subscriptions/${delivery.subscriptionId}`;
  const self = `${subscription}/deliveries/${delivery.id}`;
  return {
    id: Number(delivery.id), // bigint in the database, far below 2^53
    eventId: Number(delivery.eventId),
    subscriptionId: delivery.subscriptionId,
    subscriptionName,
    eventType: delivery.eventType,
    status: delivery.status,
    httpStatusCode: delivery.httpStatusCode,
    errorMessage: delivery.errorMessage,
    trigger: delivery.trigger,
    durationMs: delivery.durationMs,
    responseBody: delivery.responseBody,
    sentAt: delivery.sentAt.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    _links: halLinks({ self, subscription, resend: `${self}/resend` }),
  };
}
