import type { SecretBox } from '../common/crypto/secret-box';
import { DeliveryStatus } from '../common/reference/enums';
import { sealedIn } from '../subscriptions/sealed-columns';
import type { DeliveryOutcome, DeliveryRequest } from './delivery-client';
import { SigningKeys } from './signing-keys';

/**
 * What the worker hands over for one delivery: the event's id and stored body, and the
 * subscription's address, header and signing secrets (encrypted).
 */
export interface DeliveryJob {
  eventId: string;
  /** The row the sealed values are bound to: they open only there. */
  subscriptionId: number;
  url: string;
  payload: string;
  headerName: string | null;
  headerValueEncrypted: string | null;
  signingSecretEncrypted: string | null;
  previousSigningSecretEncrypted: string | null;
}

/**
 * A delivery FAILED before anything was sent: a stored secret does not open (SECRETS_KEY changed,
 * or the value was copied from another row: contract section 8, Secrets at rest). No duration, no
 * answer.
 */
const secretUnreadable = (): DeliveryOutcome => ({
  status: DeliveryStatus.FAILED,
  httpStatusCode: null,
  errorMessage: 'subscription secret unreadable',
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
    const id = job.subscriptionId;
    let headerValue: string | null = null;
    const signingKeys: string[] = [];
    try {
      if (job.headerName && job.headerValueEncrypted)
        headerValue = this.secrets.open(job.headerValueEncrypted, sealedIn.headerValue(id));
      if (job.signingSecretEncrypted !== null)
        signingKeys.push(this.signingKeys.keyOf(job.signingSecretEncrypted, sealedIn.signingSecret(id)));
      if (job.previousSigningSecretEncrypted !== null)
        signingKeys.push(
          this.signingKeys.keyOf(job.previousSigningSecretEncrypted, sealedIn.previousSigningSecret(id)),
        );
    } catch {
      return secretUnreadable();
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
