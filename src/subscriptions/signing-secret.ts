import { randomBytes } from 'node:crypto';

/** Standard Webhooks' secret prefix; the rest is the base64 of the HMAC key. */
export const SIGNING_SECRET_PREFIX = 'whsec_';
const GENERATED_BYTES = 24;
export const MIN_KEY_BYTES = 24;
export const MAX_KEY_BYTES = 64;
/** Standard base64 with its padding: what the `standardwebhooks` libraries decode. */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
export const SIGNING_SECRET_PATTERN = `^${SIGNING_SECRET_PREFIX}${BASE64.source.slice(1)}`;

/** A new secret: `whsec_` + base64 of 24 random bytes (contract section 9). */
export function generateSigningSecret(): string {
  return SIGNING_SECRET_PREFIX + randomBytes(GENERATED_BYTES).toString('base64');
}

/** Why `key` is not a usable secret (whsec_ + base64 of 24..64 bytes), or undefined. */
export function signingSecretProblem(key: string): string | undefined {
  const encoded = key.startsWith(SIGNING_SECRET_PREFIX) ? key.slice(SIGNING_SECRET_PREFIX.length) : undefined;
  if (encoded === undefined || !BASE64.test(encoded) || encoded === '') {
    return `key must be ${SIGNING_SECRET_PREFIX} followed by base64 (with its = padding)`;
  }
  const bytes = Buffer.from(encoded, 'base64').length;
  if (bytes < MIN_KEY_BYTES || bytes > MAX_KEY_BYTES) {
    return `key must encode ${MIN_KEY_BYTES} to ${MAX_KEY_BYTES} bytes (it encodes ${bytes})`;
  }
  return undefined;
}
