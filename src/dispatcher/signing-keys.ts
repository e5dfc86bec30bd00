import { LRUCache } from 'lru-cache';
import type { SecretBox } from '../common/crypto/secret-box';
import { SIGNING_SECRET_PREFIX } from '../subscriptions/signing-secret';

/**
 * Signing keys kept, decrypted here and as HMAC keys in the delivery thread (a few hundred bytes
 * each), the least recently used dropped first.
 */
export const SIGNING_KEY_CACHE_SIZE = 10_000;

/**
 * HMAC keys of stored signing secrets, by place and encrypted secret: an AES-GCM decryption per
 * delivery otherwise. The stored text has its own random IV, so it names one secret; the place is
 * part of the cache key, so a secret copied to another row is opened (and refused) there, never
 * taken from this cache. A rotated-out secret is simply no longer asked for.
 */
export class SigningKeys {
  private readonly keys = new LRUCache<string, string>({ max: SIGNING_KEY_CACHE_SIZE });

  constructor(private readonly secrets: SecretBox) {}

  /**
   * The HMAC key of a stored `whsec_…` secret, as its base64 text (after the prefix): a string is
   * what the delivery thread gets, since posting a Uint8Array to it allocated an ArrayBuffer there
   * for every delivery (webhook-signature.ts turns the text into a key once). Throws when the
   * secret cannot be opened in its place (`binding`: SecretBox).
   */
  keyOf(sealed: string, binding: string): string {
    const cacheKey = `${binding} ${sealed}`;
    let key = this.keys.get(cacheKey);
    if (key === undefined) {
      key = this.secrets.open(sealed, binding).slice(SIGNING_SECRET_PREFIX.length);
      this.keys.set(cacheKey, key);
    }
    return key;
  }
}
