import { halLinks } from '../common/hal/hal';
import { WebhookEvent } from '../common/reference/enums';
import { LICENCE_EVENT_BODIES } from '../licence-events/licence-event-bodies';
import { FAILED_EVENT_EXAMPLE, SUCCESS_EVENT_EXAMPLE } from '../licence-events/licence-event.openapi';
import type { EventTypeResponse } from './dto/event-type.response';
import { jsonSchemaOf } from './json-schema';

export const EVENT_TYPES_PATH = '/webhooks/event-types';

const EXAMPLES: Record<WebhookEvent, object> = {
  [WebhookEvent.LICENCE_CREATED_SUCCESS]: SUCCESS_EVENT_EXAMPLE,
  [WebhookEvent.LICENCE_CREATED_FAILED]: FAILED_EVENT_EXAMPLE,
};

function catalogueEntry(name: WebhookEvent): EventTypeResponse {
  const schema = jsonSchemaOf(LICENCE_EVENT_BODIES[name]);
  return {
    name,
    description: schema.description as string,
    schema,
    example: EXAMPLES[name],
    _links: halLinks({ self: `${EVENT_TYPES_PATH}/${name}` }),
  };
}

/** Every event type, in the order of the WebhookEvent enumeration; built once, as it never changes. */
export const EVENT_TYPE_CATALOGUE: readonly EventTypeResponse[] =
  Object.values(WebhookEvent).map(catalogueEntry);
