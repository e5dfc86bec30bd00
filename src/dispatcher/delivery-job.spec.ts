import { randomBytes } from 'node:crypto';
import { SecretBox } from '../common/crypto/secret-box';
import { DeliveryStatus } from '../common/reference/enums';
import { generateSigningSecret, SIGNING_SECRET_PREFIX } from '../subscriptions/signing-secret';
import type { DeliveryJob } from './delivery-job';
import { DeliveryJobOpener } from './delivery-job';

const box = SecretBox.withKey(randomBytes(32));
const otherBox = SecretBox.withKey(randomBytes(32)); // a SECRETS_KEY that changed since
const secret = generateSigningSecret();
const previous = generateSigningSecret();

const job = (overrides: Partial<DeliveryJob> = {}): DeliveryJob => ({
  eventId: '42',
  url: 'https://receiver.example.com/hooks',
  payload: '{"eventType":"LICENCE_CREATED_SUCCESS"}',
  headerName: 'X-Api-Key',
  headerValueEncrypted: box.encrypt('s3cret'),
  signingSecretEncrypted: box.encrypt(secret),
  previousSigningSecretEncrypted: null,
  ...overrides,
});

const keyOf = (whsec: string) => whsec.slice(SIGNING_SECRET_PREFIX.length);

describe('DeliveryJobOpener', () => {
  const opener = new DeliveryJobOpener(box);

  it('opens the header value and the signing keys, the current secret first', () => {
    expect(opener.open(job({ previousSigningSecretEncrypted: box.encrypt(previous) }))).toEqual({
      url: 'https://receiver.example.com/hooks',
      payload: '{"eventType":"LICENCE_CREATED_SUCCESS"}',
      headerName: 'X-Api-Key',
      headerValue: 's3cret',
      webhookId: '42',
      signingKeys: [keyOf(secret), keyOf(previous)],
    });
  });

  it('sends a row from before signing unsigned, and no header value without a header name', () => {
    const request = opener.open(job({ signingSecretEncrypted: null, headerName: null }));
    expect(request).toMatchObject({ headerValue: null, signingKeys: [] });
  });

  it.each([
    [{ headerValueEncrypted: otherBox.encrypt('s3cret') }, 'the custom header value could not be decrypted'],
    [{ signingSecretEncrypted: otherBox.encrypt(secret) }, 'the signing secret could not be decrypted'],
    [{ previousSigningSecretEncrypted: 'v1.not-sealed' }, 'the signing secret could not be decrypted'],
  ])('a stored secret it cannot decrypt makes a FAILED outcome, nothing sent (%#)', (overrides, message) => {
    expect(opener.open(job(overrides))).toEqual({
      status: DeliveryStatus.FAILED,
      httpStatusCode: null,
      errorMessage: message,
      sentAt: expect.any(Date),
      durationMs: null,
      responseBody: null,
    });
  });
});
