import { WebhookEvent } from '../common/reference/enums';
import type { LicencePayload } from './licence-payloads';

/** A licence was created and processed successfully (LICENCE_CREATED_SUCCESS). */
export class LicenceCreatedSuccessEvent {
  readonly eventType = WebhookEvent.LICENCE_CREATED_SUCCESS;
  readonly tenant: string;
  readonly licence: LicencePayload;
  /** The event's time: the `timestamp` of every copy delivered, and the receivers' duplicate key. */
  readonly timestamp: Date;

  constructor(init: { tenant: string; licence: LicencePayload; timestamp?: Date }) {
    this.tenant = init.tenant;
    this.licence = init.licence;
    this.timestamp = init.timestamp ?? new Date();
  }
}
