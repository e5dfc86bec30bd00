// Plain types, apart from the client so the modules it uses (headers, HTTP) import no cycle back.

/** How the delivery client is set up; plain data, so a worker thread can receive it. */
export interface DeliveryClientOptions {
  timeoutMs: number;
  allowPrivateNetworks: boolean;
  proxyUrl?: string;
  /** Trusted CAs (PEM); none: Node's root store plus NODE_EXTRA_CA_CERTS. */
  ca?: string[];
  userAgent: string;
}

/** One delivery as the client sends it: the header value and signing keys already decrypted. */
export interface DeliveryRequest {
  url: string;
  /** The exact JSON text of the event (identical for every subscription and copy). */
  payload: string;
  headerName: string | null;
  headerValue: string | null;
  /** `webhook-id`: the event's id, the same on every copy and resend (receivers' idempotency key). */
  webhookId: string;
  /**
   * HMAC keys as base64 text (SigningKeys), the current secret's first; none: no
   * `webhook-signature` (a row from before signing).
   */
  signingKeys: string[];
  /**
   * W3C `traceparent` of the attempt's span (contract section 12), when its event was traced: the
   * receiver's own spans join the trace. Not signed (Standard Webhooks signs id, timestamp and body).
   */
  traceparent?: string;
}
