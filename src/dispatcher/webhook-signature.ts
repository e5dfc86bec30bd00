import { createHmac } from 'node:crypto';

/**
 * Standard Webhooks v1 (contract section 9): `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`
 * per key, space-separated, the current secret first. `payload` is the exact text sent (UTF-8).
 */
export function webhookSignature(
  webhookId: string,
  timestamp: number,
  payload: string,
  keys: Uint8Array[],
): string {
  const signed = `${webhookId}.${timestamp}.${payload}`; // one update() call: the cost is per call
  return keys
    .map((key) => `v1,${createHmac('sha256', key).update(signed, 'utf8').digest('base64')}`)
    .join(' ');
}
