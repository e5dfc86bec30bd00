import type { ClientRequest, IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import { request as httpsRequest, RequestOptions } from 'node:https';
import { customHeaderNameProblem } from '../subscriptions/custom-header-name';
import type { DeliveryRequest } from './delivery-request';
import { webhookSignature } from './webhook-signature';

/**
 * The headers of one attempt (contract section 6): Standard Webhooks' `webhook-id`,
 * `webhook-timestamp` (`timestamp`, whole seconds) and, with signing keys, `webhook-signature`. The
 * subscription's custom header goes through customHeaderTransport.
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
  // No custom header can replace it: `traceparent` is among the names the service sets itself.
  if (request.traceparent !== undefined) headers.traceparent = request.traceparent;
  if (request.signingKeys.length > 0) {
    headers['webhook-signature'] = webhookSignature(
      request.webhookId,
      timestamp,
      request.payload,
      request.signingKeys,
    );
  }
  return headers;
}

/** What axios takes as `transport`: an object with http.request's signature. */
export interface DeliveryTransport {
  request(options: RequestOptions, callback: (response: IncomingMessage) => void): ClientRequest;
}

/**
 * The subscription's custom header, when both name and value are set and the name is one the API
 * accepts (a row stored under older rules may hold another), added as axios hands the request to
 * Node: axios renames a header named like one of its own methods (`toString` went out as
 * `ToString`, `set` as `Set`) and drops `constructor`, while Node sends every name as given.
 */
export function customHeaderTransport(request: DeliveryRequest): DeliveryTransport | undefined {
  const { headerName, headerValue } = request;
  if (!headerName || !headerValue || customHeaderNameProblem(headerName) !== undefined) return undefined;
  return {
    request: (options, callback) => {
      // axios' header object has no prototype (AxiosHeaders.toJSON): any name is an own key.
      (options.headers as OutgoingHttpHeaders)[headerName] = headerValue;
      return httpsRequest(options, callback);
    },
  };
}
