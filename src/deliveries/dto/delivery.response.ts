import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { halLinks, HalLink, HalLinks } from '../../common/hal/hal';
import { DeliveryStatus, WebhookEvent } from '../../common/reference/enums';
import { ApiDateTime } from '../../common/openapi/schemas';
import type { DeliveryRecord } from '../deliveries.service';

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
}

/** A webhook delivery record (spec, Resources: Webhook delivery record). */
@ApiSchema({
  name: 'Delivery',
  description: 'One delivery attempt. A FAILED delivery is never resent automatically.',
})
export class DeliveryResponse {
  @ApiProperty({ type: 'integer', format: 'int64', minimum: 1, description: 'Identifier', example: 10 })
  id: number;
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
  @ApiDateTime('Time of sending', '2026-11-21T10:00:00.120Z')
  sentAt: string;
  @ApiDateTime('Record creation time', '2026-11-21T10:00:00.250Z')
  createdAt: string;
  @ApiProperty({ type: DeliveryLinks, description: 'HAL links' }) _links: HalLinks;
}

export function toDeliveryResponse(delivery: DeliveryRecord, subscriptionName: string): DeliveryResponse {
  const subscription = `/webhooks/subscriptions/${delivery.subscriptionId}`;
  return {
    id: Number(delivery.id), // bigint in the database, far below 2^53
    subscriptionId: delivery.subscriptionId,
    subscriptionName,
    eventType: delivery.eventType,
    status: delivery.status,
    httpStatusCode: delivery.httpStatusCode,
    errorMessage: delivery.errorMessage,
    sentAt: delivery.sentAt.toISOString(),
    createdAt: delivery.createdAt.toISOString(),
    _links: halLinks({ self: `${subscription}/deliveries/${delivery.id}`, subscription }),
  };
}
