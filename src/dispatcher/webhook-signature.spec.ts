import { Webhook } from 'standardwebhooks';
import { generateSigningSecret, SIGNING_SECRET_PREFIX } from '../subscriptions/signing-secret';
import { webhookSignature } from './webhook-signature';

const keyText = (whsec: string) => whsec.slice(SIGNING_SECRET_PREFIX.length);

describe('webhookSignature', () => {
  const payload = '{"eventType":"LICENCE_CREATED_SUCCESS","licence":{"code":"ÄÖ-1"}}';
  const timestamp = 1_795_000_000;

  it("is the reference library's signature for each key, the current one first, space-separated", () => {
    const current = generateSigningSecret();
    const previous = generateSigningSecret();
    const expected = [current, previous]
      .map((whsec) => new Webhook(whsec).sign('42', new Date(timestamp * 1000), payload))
      .join(' ');
    const signature = webhookSignature('42', timestamp, payload, [keyText(current), keyText(previous)]);
    expect(signature).toBe(expected);
    // Made again from the cached keys: the same text.
    expect(webhookSignature('42', timestamp, payload, [keyText(current), keyText(previous)])).toBe(signature);
    const headers = {
      'webhook-id': '42',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    };
    const now = Date.now;
    Date.now = () => timestamp * 1000;
    try {
      expect(new Webhook(previous).verify(payload, headers)).toEqual(JSON.parse(payload));
    } finally {
      Date.now = now;
    }
  });

  it('differs with the body, the id or the timestamp', () => {
    const key = [keyText(generateSigningSecret())];
    const base = webhookSignature('42', timestamp, payload, key);
    expect(webhookSignature('42', timestamp, payload.replace('1', '2'), key)).not.toBe(base);
    expect(webhookSignature('43', timestamp, payload, key)).not.toBe(base);
    expect(webhookSignature('42', timestamp + 1, payload, key)).not.toBe(base);
  });
});
