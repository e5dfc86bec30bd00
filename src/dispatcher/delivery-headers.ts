import type { DeliveryRequest } from './delivery-client';
import { webhookSignature } from './webhook-signature';

/** Set here or by HTTP itself: a subscription's custom header never replaces one of them. */
const RESERVED_HEADERS = new Set([
  'content-type',
  'user-agent',
  'accept-encoding',
  'host',
  'content-length',
  'connection',
  'transfer-encoding',
  'webhook-id',
  'webhook-timestamp',
  'webhook-signature',
]);

/**
 * The headers of one attempt (contract section 6): Standard Webhooks' `webhook-id`,
 * `webhook-timestamp` (`timestamp`, whole seconds) and, with signing keys, `webhook-signature`; then
 * the subscription's custom header.
 */
export function deliveryHeaders(
  request: DeliveryRequest,
  userAgent: string,
  timestamp: number,
): Record<string, string | false> {
  const headers: Record<string, string | false> = {
    'Content-Type': 'application/json',
    'User-Agent': userAgent,
    // The answer's first bytes are recorded as they come, never decoded (axios: decompress false):
    // nothing is asked to be compressed (contract section 8, "What receivers answer").
    'Accept-Encoding': 'identity',
    'webhook-id': request.webhookId,
    'webhook-timestamp': String(timestamp),
  };
  if (request.signingKeys.length > 0) {
    headers['webhook-signature'] = webhookSignature(
      request.webhookId,
      timestamp,
      request.payload,
      request.signingKeys,
    );
  }
  // The custom header when both name and value are set; never one of the headers set here or by
  // HTTP itself (the API refuses those names already).
  if (request.headerName && request.headerValue && !RESERVED_HEADERS.has(request.headerName.toLowerCase())) {
    headers[request.headerName] = request.headerValue;
  }
  return headers;
}
