import { WebhookEvent } from '../common/reference/enums';
import type { LicenceErrorPayload } from './licence-payloads';

/** Creation or processing of a licence failed (LICENCE_CREATED_FAILED). */
export class LicenceCreatedFailedEvent {
  readonly eventType = WebhookEvent.LICENCE_CREATED_FAILED;
  readonly tenant: string;
  readonly error: LicenceErrorPayload;
  /** The event's time: the `timestamp` of every copy delivered, and the receivers' duplicate key. */
  readonly timestamp: Date;

  constructor(init: { tenant: string; error: LicenceErrorPayload; timestamp?: Date }) {
    this.tenant = init.tenant;
    this.error = init.error;
    this.timestamp = init.timestamp ?? new Date();
  }
}
