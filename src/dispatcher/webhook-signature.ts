import { createHmac, createSecretKey, KeyObject } from 'node:crypto';
import { LRUCache } from 'lru-cache';
import { SIGNING_KEY_CACHE_SIZE } from './signing-keys';

/** HMAC keys made from their base64 text. */
const hmacKeys = new LRUCache<string, KeyObject>({ max: SIGNING_KEY_CACHE_SIZE });

/** The HMAC key a signing secret's base64 text (after `whsec_`) encodes, made once per secret. */
function hmacKey(base64: string): KeyObject {
  let key = hmacKeys.get(base64);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(base64, 'base64'));
    hmacKeys.set(base64, key);
  }
  return key;
}

/**
 * Standard Webhooks v1 (contract section 9): `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * per key, space-separated, the current secret first. `payload` is the exact text sent (UTF-8);
 * `keys` are the secrets' base64 texts (SigningKeys).
 */
export function webhookSignature(
  webhookId: string,
  timestamp: number,
  payload: string,
  keys: string[],
): string {
  const signed = `${webhookId}.${timestamp}.${payload}`; // one update() call: the cost is per call
  return keys
    .map((key) => `v1,${createHmac('sha256', hmacKey(key)).update(signed, 'utf8').digest('base64')}`)
    .join(' ');
}
