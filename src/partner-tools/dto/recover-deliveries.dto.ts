import { ApiProperty, ApiSchema } from '@nestjs/swagger';
import { OptionalNotNull } from '../../common/validation/optional-not-null';
import { EXAMPLE_END, InstantField } from '../../common/validation/instant';

/** Most events one recovery sends again (contract section 9). */
export const MAX_RECOVERED_EVENTS = 10_000;

/** POST /webhooks/subscriptions/{id}/recover (contract section 9). */
@ApiSchema({
  name: 'RecoverDeliveriesRequest',
  description:
    'The window of a recovery, on the time of the latest attempt (`sentAt`): `since` inclusive, ' +
    '`until` exclusive (default now). `since` at most RETENTION_DAYS back, before `until`.',
})
export class RecoverDeliveriesDto {
  @InstantField('Start of the window (inclusive): at most RETENTION_DAYS back', true)
  since: string;

  @OptionalNotNull()
  @InstantField('End of the window (exclusive); default now', false, EXAMPLE_END)
  until?: string;
}

@ApiSchema({ name: 'RecoverDeliveriesReceipt', description: 'What a recovery enqueued (committed)' })
export class RecoverDeliveriesReceipt {
  @ApiProperty({
    type: 'integer',
    minimum: 0,
    maximum: MAX_RECOVERED_EVENTS,
    description:
      'Events sent again: those of the window whose latest attempt for this subscription FAILED and ' +
      `that had no attempt pending (at most ${MAX_RECOVERED_EVENTS}, oldest first)`,
    example: 3,
  })
  events: number;
}
