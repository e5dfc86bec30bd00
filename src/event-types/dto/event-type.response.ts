import { ApiProperty, ApiSchema, getSchemaPath } from '@nestjs/swagger';
import { HalLinks, SelfLinks } from '../../common/hal/hal';
import { WebhookEvent } from '../../common/reference/enums';
import { LICENCE_EVENT_BODIES } from '../../licence-events/licence-event-bodies';
import type { JsonSchema } from '../json-schema';

/** One entry of the event-type catalogue (contract section 11). */
@ApiSchema({
  name: 'EventType',
  description: 'An event type: what it means, the JSON Schema of its delivery body and an example body',
})
export class EventTypeResponse {
  @ApiProperty({
    enum: WebhookEvent,
    enumName: 'WebhookEvent',
    description: "The event type, as a subscription's `events` and a delivery's `eventType` name it",
    example: WebhookEvent.LICENCE_CREATED_SUCCESS,
  })
  name: WebhookEvent;

  @ApiProperty({
    type: String,
    description: 'What happened when an event of this type is delivered',
    example: 'A licence was created and processed successfully: the licence, and error null',
  })
  description: string;

  @ApiProperty({
    type: 'object',
    additionalProperties: true,
    description:
      'The JSON Schema (2020-12, `$schema` set) of the body delivered for this type: every delivery ' +
      'of it is valid against it. It is the OpenAPI component of the same name as its `title`.',
    example: { $schema: 'https://json-schema.org/draft/2020-12/schema', title: 'LicenceCreatedSuccessEvent' },
  })
  schema: JsonSchema;

  @ApiProperty({
    oneOf: Object.values(LICENCE_EVENT_BODIES).map((body) => ({ $ref: getSchemaPath(body) })),
    description: 'A body of this type, valid against `schema`',
  })
  example: object;

  @ApiProperty({ type: SelfLinks, description: 'HAL links' }) _links: HalLinks;
}
