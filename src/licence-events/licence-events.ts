import { WebhookEvent } from '../common/reference/enums';
import { LicenceCreatedFailedEvent } from './licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from './licence-created-success.event';

/**
 * The one map from event name to event class: LicenceEventPublisher.emit() takes a name and a
 * payload of exactly that name's class, so a wrong pairing does not compile.
 */
export interface LicenceEventMap {
  [WebhookEvent.LICENCE_CREATED_SUCCESS]: LicenceCreatedSuccessEvent;
  [WebhookEvent.LICENCE_CREATED_FAILED]: LicenceCreatedFailedEvent;
}

export type LicenceEventName = keyof LicenceEventMap;
export type LicenceEvent = LicenceEventMap[LicenceEventName];

/** The same map at run time (every webhook event has a class; a missing one does not compile). */
export const LICENCE_EVENT_CLASSES = {
  [WebhookEvent.LICENCE_CREATED_SUCCESS]: LicenceCreatedSuccessEvent,
  [WebhookEvent.LICENCE_CREATED_FAILED]: LicenceCreatedFailedEvent,
} as const satisfies { [K in LicenceEventName]: new (...args: any[]) => LicenceEventMap[K] };

/** What publishing returns once the event and its jobs are committed. */
export interface PublishReceipt {
  eventId: number;
  eventType: LicenceEventName;
  tenant: string;
  /** The event's timestamp, YYYY-MM-DDTHH:mm:ss.sssZ. */
  timestamp: string;
  matchedSubscriptions: number;
  /** Present when an idempotency key found this receipt from an earlier publication: nothing was queued. */
  replayed?: true;
}
