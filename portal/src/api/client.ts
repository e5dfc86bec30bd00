import createClient from 'openapi-fetch';
import type { Client, Middleware } from 'openapi-fetch';
import { ApiError } from './errors';
import type { paths } from './schema.gen';
import type { DeliveryFilters, SubscriptionBody, SubscriptionListParams, WebhookEvent } from './types';

/**
 * The portal's only way to the service: the public API (same origin), typed by the service's own
 * OpenAPI document through openapi-fetch, a bearer token in the Authorization header (never in a
 * URL), and every failure turned into an ApiError whose words a person can act on.
 */
export interface ApiClientOptions {
  /** The session's token, read at each call. */
  token: () => string | undefined;
  /** Called on every 401 of a call that carried a token: the session is over. */
  onUnauthorized: () => void;
  /** '' in the browser (same origin); an absolute origin where there is no page (unit tests). */
  baseUrl?: string;
  fetch?: (request: Request) => Promise<Response>;
}

/** openapi-fetch's answer: `data` on a 2xx, `error` (the parsed body) otherwise. */
interface Outcome<T> {
  data?: T;
  error?: unknown;
  response: Response;
}

/** The data of a 2xx, or an ApiError: status 0 when no answer arrived. */
async function answer<T>(call: Promise<Outcome<T>>): Promise<T> {
  let outcome: Outcome<T>;
  try {
    outcome = await call;
  } catch {
    throw new ApiError(0, undefined);
  }
  if (!outcome.response.ok) throw ApiError.fromResponse(outcome.response, outcome.error);
  return outcome.data as T;
}

const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });

function sessionToken(options: ApiClientOptions): Middleware {
  return {
    onRequest({ request, schemaPath }) {
      const token = options.token();
      // Never on a login: a failed login is not the end of a session.
      if (schemaPath === '/auth/login' || !token || request.headers.has('Authorization')) return;
      request.headers.set('Authorization', bearer(token).Authorization);
      return request;
    },
    onResponse({ request, response }) {
      if (response.status === 401 && request.headers.has('Authorization')) options.onUnauthorized();
    },
  };
}

const PAGE_SIZE = 20;
const orUndefined = (text: string) => text || undefined;

type Http = Client<paths>;

const byId = (id: number) => ({ params: { path: { id } } });
const byDelivery = (id: number, deliveryId: number) => ({ params: { path: { id, deliveryId } } });

function sessionCalls(http: Http, baseUrl: string, send: (request: Request) => Promise<Response>) {
  return {
    login: (email: string, password: string) =>
      answer(http.POST('/auth/login', { body: { email, password } })),

    /** `token`: this one instead of the session's (the call right after a login). */
    me: (token?: string) => answer(http.GET('/auth/me', token ? { headers: bearer(token) } : {})),

    /**
     * POST /auth/logout (contract section 8). Undefined once the service refuses the token from now
     * on (revoked, or already invalid: 401); otherwise why it was not revoked (a 429, the service
     * unreachable), for the portal to say so: it forgets the token either way. Not in the OpenAPI
     * document on every version of the service, hence a plain request.
     */
    logout: async (token: string): Promise<ApiError | undefined> => {
      let response: Response;
      try {
        response = await send(
          new Request(`${baseUrl}/auth/logout`, { method: 'POST', headers: bearer(token) }),
        );
      } catch {
        return new ApiError(0, undefined);
      }
      if (response.ok || response.status === 401) return undefined;
      return ApiError.fromResponse(response, await response.json().catch(() => undefined));
    },

    /** Administrators: the tenants their users belong to (the first 100 users). */
    tenants: async (): Promise<string[]> => {
      const page = await answer(http.GET('/admin/users', { params: { query: { size: 100, sort: ['id'] } } }));
      return [...new Set(page.content.map((u) => u.tenant))].sort();
    },
  };
}

function subscriptionCalls(http: Http) {
  return {
    subscriptions: ({ index, active, health, page, tenant }: SubscriptionListParams) => {
      const shared = { page, size: PAGE_SIZE, tenant: orUndefined(tenant), health: health || undefined };
      // The active list takes no `index` (the published spec): a name search is on the full list.
      return active === ''
        ? answer(
            http.GET('/webhooks/subscriptions', {
              params: { query: { ...shared, index: orUndefined(index) } },
            }),
          )
        : answer(
            http.GET('/webhooks/subscriptions/active', {
              params: { query: { ...shared, active: active === 'true' } },
            }),
          );
    },

    subscription: (id: number) => answer(http.GET('/webhooks/subscriptions/{id}', byId(id))),

    createSubscription: (body: SubscriptionBody) => answer(http.POST('/webhooks/subscriptions', { body })),

    updateSubscription: (id: number, body: SubscriptionBody) =>
      answer(http.PUT('/webhooks/subscriptions/{id}', { ...byId(id), body })),

    deleteSubscription: (id: number) => answer(http.DELETE('/webhooks/subscriptions/{id}', byId(id))),

    secret: (id: number) => answer(http.GET('/webhooks/subscriptions/{id}/secret', byId(id))),

    rotateSecret: (id: number) =>
      answer(http.POST('/webhooks/subscriptions/{id}/secret/rotate', { ...byId(id), body: {} })),
  };
}

function deliveryCalls(http: Http) {
  return {
    sendTest: (id: number, eventType: WebhookEvent) =>
      answer(http.POST('/webhooks/subscriptions/{id}/test', { ...byId(id), body: { eventType } })),

    deliveries: (id: number, filters: DeliveryFilters, page = 0, size = PAGE_SIZE) =>
      answer(
        http.GET('/webhooks/subscriptions/{id}/deliveries', {
          params: { path: { id }, query: { ...filters, page, size } },
        }),
      ),

    delivery: (id: number, deliveryId: number) =>
      answer(http.GET('/webhooks/subscriptions/{id}/deliveries/{deliveryId}', byDelivery(id, deliveryId))),

    resend: (id: number, deliveryId: number) =>
      answer(
        http.POST('/webhooks/subscriptions/{id}/deliveries/{deliveryId}/resend', byDelivery(id, deliveryId)),
      ),

    recover: (id: number, since: string) =>
      answer(http.POST('/webhooks/subscriptions/{id}/recover', { ...byId(id), body: { since } })),
  };
}

export function createApiClient(options: ApiClientOptions) {
  const baseUrl = options.baseUrl ?? '';
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const http = createClient<paths>({ baseUrl, fetch: send, headers: { Accept: 'application/hal+json' } });
  http.use(sessionToken(options));
  return { ...sessionCalls(http, baseUrl, send), ...subscriptionCalls(http), ...deliveryCalls(http) };
}

export type ApiClient = ReturnType<typeof createApiClient>;
