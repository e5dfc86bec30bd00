import { LRUCache } from 'lru-cache';
import type { SecretBox } from '../common/crypto/secret-box';
import { SIGNING_SECRET_PREFIX } from '../subscriptions/signing-secret';

/** Decrypted signing keys kept (a few hundred bytes each), the least recently used dropped first. */
const SIGNING_KEY_CACHE_SIZE = 10_000;

/**
 * HMAC keys of stored signing secrets, by encrypted secret: an AES-GCM decryption per delivery
 * otherwise. The stored text has its own random IV, so it names one secret of one subscription,
 * and a rotated-out secret is simply no longer asked for.
 */
export class SigningKeys {
  private readonly keys = new LRUCache<string, Uint8Array>({ max: SIGNING_KEY_CACHE_SIZE });

  constructor(private readonly secrets: SecretBox) {}

  /**
   * The HMAC key of a stored `whsec_…` secret (the base64 after the prefix, decoded), in an
   * ArrayBuffer of its own: a small Buffer is a view on an 8 KiB pool, which posting it to the
   * delivery thread would copy whole. Throws when the secret cannot be decrypted.
   */
  keyOf(sealed: string): Uint8Array {
    let key = this.keys.get(sealed);
    if (key === undefined) {
      const secret = this.secrets.decrypt(sealed);
      key = new Uint8Array(Buffer.from(secret.slice(SIGNING_SECRET_PREFIX.length), 'base64'));
      this.keys.set(sealed, key);
    }
    return key;
  }
}
