import { LicenceStatus, WebhookEvent } from '../common/reference/enums';
import { LicenceCreatedFailedEvent } from './licence-created-failed.event';
import { LicenceCreatedSuccessEvent } from './licence-created-success.event';
import type { LicenceEvent } from './licence-events';

/** The sample event of a test (contract section 9): a valid licence coded TEST-…, or a TestEvent error. */
export function sampleEvent(eventType: WebhookEvent, tenant: string): LicenceEvent {
  const timestamp = new Date();
  if (eventType === WebhookEvent.LICENCE_CREATED_FAILED) {
    return new LicenceCreatedFailedEvent({
      tenant,
      timestamp,
      error: { message: 'This is a test event: no licence was involved', type: 'TestEvent' },
    });
  }
  return new LicenceCreatedSuccessEvent({
    tenant,
    timestamp,
    licence: {
      code: `TEST-${timestamp.getTime()}`,
      clientId: 1,
      planId: 1,
      name: 'Test Licence Holder',
      email: 'test@example.com',
      phoneNumber: '11999999999',
      status: LicenceStatus.CREATED,
      maxRedemptions: 1,
      pricing: 0,
    },
  });
}
