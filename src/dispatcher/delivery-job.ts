import type { SecretBox } from '../common/crypto/secret-box';
import { DeliveryStatus } from '../common/reference/enums';
import type { DeliveryOutcome, DeliveryRequest } from './delivery-client';
import { SigningKeys } from './signing-keys';

/**
 * What the worker hands over for one delivery: the event's id and stored body, and the
 * subscription's address, header and signing secrets (encrypted).
 */
export interface DeliveryJob {
  eventId: string;
  url: string;
  payload: string;
  headerName: string | null;
  headerValueEncrypted: string | null;
  signingSecretEncrypted: string | null;
  previousSigningSecretEncrypted: string | null;
}

/**
 * A delivery FAILED before anything was sent (a stored secret is unreadable, e.g. SECRETS_KEY
 * changed): no duration, no answer.
 */
const notSent = (errorMessage: string): DeliveryOutcome => ({
  status: DeliveryStatus.FAILED,
  httpStatusCode: null,
  errorMessage,
  sentAt: new Date(),
  durationMs: null,
  responseBody: null,
});

/**
 * Turns a job into the request the delivery thread sends, on the main thread: the custom header's
 * value decrypted, the signing secrets as HMAC keys (the current one first). The thread never
 * holds SECRETS_KEY.
 */
export class DeliveryJobOpener {
  private readonly signingKeys: SigningKeys;

  constructor(private readonly secrets: SecretBox) {
    this.signingKeys = new SigningKeys(secrets);
  }

  /** The request, or the FAILED outcome of a job whose stored secrets cannot be decrypted. */
  open(job: DeliveryJob): DeliveryRequest | DeliveryOutcome {
    let headerValue: string | null = null;
    let signingKeys: string[];
    try {
      if (job.headerName && job.headerValueEncrypted)
        headerValue = this.secrets.decrypt(job.headerValueEncrypted);
    } catch {
      return notSent('the custom header value could not be decrypted');
    }
    try {
      signingKeys = [job.signingSecretEncrypted, job.previousSigningSecretEncrypted]
        .filter((sealed) => sealed !== null)
        .map((sealed) => this.signingKeys.keyOf(sealed));
    } catch {
      return notSent('the signing secret could not be decrypted');
    }
    return {
      url: job.url,
      payload: job.payload,
      headerName: job.headerName,
      headerValue,
      webhookId: job.eventId,
      signingKeys,
    };
  }
}
