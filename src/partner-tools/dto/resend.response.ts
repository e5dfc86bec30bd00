import { ApiProperty, ApiSchema } from '@nestjs/swagger';

@ApiSchema({ name: 'ResendReceipt', description: 'The resend, committed for delivery' })
export class ResendReceipt {
  @ApiProperty({
    type: 'integer',
    format: 'int64',
    minimum: 1,
    description: 'The event sent again (the same body and `webhook-id` as before)',
    example: 1001,
  })
  eventId: number;
  @ApiProperty({ type: 'integer', minimum: 1, description: 'The subscription it goes to', example: 1 })
  subscriptionId: number;
}
