/**
 * The portal's only way to the service: the public API (same origin), a bearer token in the
 * Authorization header (never in a URL), and every failure turned into an ApiError whose words a
 * person can act on.
 */

export const EVENT_TYPES = ['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED'] as const;
export const DELIVERY_STATUSES = ['SUCCESS', 'FAILED'] as const;
export const TRIGGERS = ['EVENT', 'RESEND', 'RECOVER', 'TEST'] as const;

export interface Page<T> {
  content: T[];
  totalElements: number;
  totalPages: number;
  number: number;
  size: number;
  first: boolean;
  last: boolean;
}

export interface Me {
  user: string;
  isAdministrator: boolean;
  role: string;
  otherInformation: { partnerName: string; userName: string | null; partnerId: number; hub: boolean };
}

export interface Subscription {
  id: number;
  tenant: string;
  active: boolean;
  name: string;
  url: string;
  description: string | null;
  events: string[];
  headerName: string | null;
  createdAt: string;
  updatedAt: string;
}

/** The body of a create or a PUT (contract section 5). */
export interface SubscriptionBody {
  name: string;
  url: string;
  description?: string;
  events: string[];
  active?: boolean;
  headerName?: string;
  headerValue?: string | null;
  tenant?: string;
}

export interface Delivery {
  id: number | string;
  subscriptionId: number;
  subscriptionName: string;
  /** The event's id (its webhook-id): the same on every attempt of it. */
  eventId?: number | string;
  eventType: string;
  trigger?: string;
  status: string;
  httpStatusCode: number | null;
  errorMessage: string | null;
  durationMs?: number | null;
  responseBody?: string | null;
  payload?: unknown;
  sentAt: string;
  createdAt: string;
}

export interface DeliveryFilters {
  status?: string;
  eventType?: string;
  trigger?: string;
  since?: string;
  until?: string;
}

interface ErrorBody {
  status?: number;
  message?: string;
  requestId?: string;
  errors?: Array<{ field: string; message: string }>;
}

/** A failed call: the HTTP status (0 when no answer arrived) and what the service said. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly serviceMessage: string | undefined,
    readonly retryAfterSeconds?: number,
    readonly fieldErrors: Array<{ field: string; message: string }> = [],
    readonly requestId?: string,
  ) {
    super(describeFailure(status, serviceMessage, retryAfterSeconds, fieldErrors));
    this.name = 'ApiError';
  }
}

/**
 * Retry-After (RFC 9110): delay-seconds or an HTTP-date; whole seconds to wait from `now`, or
 * undefined when the header is absent or unreadable.
 */
export function parseRetryAfter(value: string | null | undefined, now = Date.now()): number | undefined {
  if (value === null || value === undefined) return undefined;
  const text = value.trim();
  if (/^\d+$/.test(text)) return Number(text);
  if (text === '' || /^[\d.+-]+$/.test(text)) return undefined;
  const date = Date.parse(text);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, Math.ceil((date - now) / 1000));
}

const seconds = (n: number) => (n === 1 ? '1 second' : `${n} seconds`);

/** The words shown for a failed call. */
export function describeFailure(
  status: number,
  serviceMessage?: string,
  retryAfterSeconds?: number,
  fieldErrors: Array<{ field: string; message: string }> = [],
): string {
  const said = serviceMessage ? ` The service said: ${serviceMessage}` : '';
  const wait = retryAfterSeconds !== undefined ? ` Try again in ${seconds(retryAfterSeconds)}.` : '';
  if (status === 0) return 'The service could not be reached. Check your connection and try again.';
  if (status === 400) {
    const details = fieldErrors.map((e) => `${e.field}: ${e.message}`).join('; ');
    return `The request was refused as invalid: ${details || serviceMessage || 'bad request'}.`;
  }
  if (status === 401) return 'Your session has expired: log in again.';
  if (status === 403)
    return `You are not allowed to do this (your account or role lacks the permission).${said}`;
  if (status === 404) return 'Not found: it may have been deleted, or it is not yours to see.';
  if (status === 409) return `This cannot be done in the current state.${said}`;
  if (status === 413) return 'The request is too large.';
  if (status === 429) {
    return retryAfterSeconds !== undefined
      ? `Too many requests: wait ${seconds(retryAfterSeconds)} before trying again.`
      : 'Too many requests: wait a minute before trying again.';
  }
  if (status === 503) return `The service is temporarily unavailable.${wait || ' Try again in a moment.'}`;
  if (status >= 500)
    return `The service failed to answer this request (HTTP ${status}). Try again later.${wait}`;
  return `The request failed (HTTP ${status}).${said}`;
}

export type Fetch = (input: string, init: RequestInit) => Promise<Response>;

export interface ApiClientOptions {
  token: () => string | undefined;
  /** Called on every 401 of an authenticated call: the session is over. */
  onUnauthorized: () => void;
  fetch?: Fetch;
}

const query = (params: Record<string, string | number | boolean | undefined>) => {
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== '') search.set(key, String(value));
  }
  const text = search.toString();
  return text ? `?${text}` : '';
};

export class ApiClient {
  private readonly fetch: Fetch;

  constructor(private readonly options: ApiClientOptions) {
    this.fetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  }

  /** `token`: this one instead of the session's (the call right after a login). */
  async request<T>(method: string, path: string, body?: unknown, token = this.options.token()): Promise<T> {
    const headers: Record<string, string> = { Accept: 'application/hal+json' };
    if (token) headers.Authorization = `Bearer ${token}`;
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
      });
    } catch {
      throw new ApiError(0, undefined);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      parsed = undefined;
    }
    if (response.ok) return parsed as T;
    const error = (parsed ?? {}) as ErrorBody;
    if (response.status === 401 && token) this.options.onUnauthorized();
    throw new ApiError(
      response.status,
      typeof error.message === 'string' ? error.message : undefined,
      parseRetryAfter(response.headers.get('Retry-After')),
      Array.isArray(error.errors) ? error.errors : [],
      typeof error.requestId === 'string' ? error.requestId : undefined,
    );
  }

  login(email: string, password: string) {
    // Never with a bearer token: a failed login is not the end of a session.
    return this.request<{ token: string; expiresIn: number }>('POST', '/auth/login', { email, password }, '');
  }

  me(token?: string) {
    return this.request<Me>('GET', '/auth/me', undefined, token);
  }

  /** Administrators: the tenants their users belong to (the first 100 users). */
  async tenants(): Promise<string[]> {
    const page = await this.request<Page<{ tenant: string }>>('GET', '/admin/users?size=100&sort=id');
    return [...new Set(page.content.map((u) => u.tenant))].sort();
  }

  subscriptions(params: { index?: string; active?: 'true' | 'false'; page: number; tenant?: string }) {
    // The active list takes no `index` (the published spec): a name search is on the full list.
    const { active, index, ...rest } = params;
    const path = active === undefined ? '/webhooks/subscriptions' : '/webhooks/subscriptions/active';
    const filter = active === undefined ? { index } : { active };
    return this.request<Page<Subscription>>('GET', path + query({ ...rest, ...filter, size: 20 }));
  }

  subscription(id: number) {
    return this.request<Subscription>('GET', `/webhooks/subscriptions/${id}`);
  }

  createSubscription(body: SubscriptionBody) {
    return this.request<Subscription>('POST', '/webhooks/subscriptions', body);
  }

  updateSubscription(id: number, body: SubscriptionBody) {
    return this.request<Subscription>('PUT', `/webhooks/subscriptions/${id}`, body);
  }

  deleteSubscription(id: number) {
    return this.request<Subscription>('DELETE', `/webhooks/subscriptions/${id}`);
  }

  secret(id: number) {
    return this.request<{ key: string }>('GET', `/webhooks/subscriptions/${id}/secret`);
  }

  rotateSecret(id: number) {
    return this.request<{ key: string }>('POST', `/webhooks/subscriptions/${id}/secret/rotate`, {});
  }

  sendTest(id: number, eventType?: string) {
    return this.request<{ eventId: number | string }>(
      'POST',
      `/webhooks/subscriptions/${id}/test`,
      eventType ? { eventType } : {},
    );
  }

  deliveries(id: number, filters: DeliveryFilters, page = 0, size = 20) {
    return this.request<Page<Delivery>>(
      'GET',
      `/webhooks/subscriptions/${id}/deliveries` + query({ ...filters, page, size }),
    );
  }

  delivery(id: number, deliveryId: string) {
    return this.request<Delivery>('GET', `/webhooks/subscriptions/${id}/deliveries/${deliveryId}`);
  }

  resend(id: number, deliveryId: string) {
    return this.request<{ eventId: number | string; subscriptionId: number }>(
      'POST',
      `/webhooks/subscriptions/${id}/deliveries/${deliveryId}/resend`,
    );
  }

  recover(id: number, since: string, until?: string) {
    return this.request<{ events: number }>('POST', `/webhooks/subscriptions/${id}/recover`, {
      since,
      ...(until ? { until } : {}),
    });
  }
}

/** A subscription as a PUT body: the same fields, the stored header value kept (contract section 5). */
export function toBody(s: Subscription, changes: Partial<SubscriptionBody> = {}): SubscriptionBody {
  return {
    name: s.name,
    url: s.url,
    ...(s.description ? { description: s.description } : {}),
    events: s.events,
    active: s.active,
    ...(s.headerName ? { headerName: s.headerName } : {}),
    ...changes,
  };
}

/** A datetime-local input's value (the browser's local time) as an ISO 8601 UTC instant. */
export function localInputToIso(value: string): string | undefined {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}
