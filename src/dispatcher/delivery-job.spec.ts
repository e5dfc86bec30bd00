import { randomBytes } from 'node:crypto';
import { SecretBox } from '../common/crypto/secret-box';
import { DeliveryStatus } from '../common/reference/enums';
import { sealedIn } from '../subscriptions/sealed-columns';
import { generateSigningSecret, SIGNING_SECRET_PREFIX } from '../subscriptions/signing-secret';
import type { DeliveryJob } from './delivery-job';
import { DeliveryJobOpener } from './delivery-job';

const box = SecretBox.withKey(randomBytes(32));
const otherBox = SecretBox.withKey(randomBytes(32)); // a SECRETS_KEY that changed since
const secret = generateSigningSecret();
const previous = generateSigningSecret();

const job = (overrides: Partial<DeliveryJob> = {}): DeliveryJob => ({
  eventId: '42',
  subscriptionId: 7,
  url: 'https://receiver.example.com/hooks',
  payload: '{"eventType":"LICENCE_CREATED_SUCCESS"}',
  headerName: 'X-Api-Key',
  headerValueEncrypted: box.seal('s3cret', sealedIn.headerValue(7)),
  signingSecretEncrypted: box.seal(secret, sealedIn.signingSecret(7)),
  previousSigningSecretEncrypted: null,
  ...overrides,
});

const keyOf = (whsec: string) => whsec.slice(SIGNING_SECRET_PREFIX.length);

describe('DeliveryJobOpener', () => {
  const opener = new DeliveryJobOpener(box);

  it('opens the header value and the signing keys, the current secret first', () => {
    expect(
      opener.open(
        job({ previousSigningSecretEncrypted: box.seal(previous, sealedIn.previousSigningSecret(7)) }),
      ),
    ).toEqual({
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
    [{ headerValueEncrypted: otherBox.seal('s3cret', sealedIn.headerValue(7)) }],
    [{ signingSecretEncrypted: otherBox.seal(secret, sealedIn.signingSecret(7)) }],
    [{ previousSigningSecretEncrypted: 'v1.not-sealed' }],
    // Another row's values, or one column's value in another: sealed for another place.
    [{ headerValueEncrypted: box.seal('s3cret', sealedIn.headerValue(8)) }],
    [{ signingSecretEncrypted: box.seal(secret, sealedIn.signingSecret(8)) }],
    [{ previousSigningSecretEncrypted: box.seal(previous, sealedIn.signingSecret(7)) }],
    // Unbound (v1): from before migration BindSealedSecrets, which re-sealed every one.
    [{ headerValueEncrypted: box.sealUnbound('s3cret') }],
  ])(
    'a stored secret that does not open in its place makes a FAILED outcome, nothing sent (%#)',
    (overrides) => {
      expect(opener.open(job(overrides))).toEqual({
        status: DeliveryStatus.FAILED,
        httpStatusCode: null,
        errorMessage: 'subscription secret unreadable',
        sentAt: expect.any(Date),
        durationMs: null,
        responseBody: null,
      });
    },
  );
});
