import { describe, expect, it } from '@jest/globals';
import { createApiClient } from './client';
import { ApiError } from './errors';
import { toBody } from './types';
import type { Subscription } from './types';

const ORIGIN = 'http://portal.test';

describe('ApiClient (openapi-fetch, typed by the OpenAPI document)', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(body === undefined ? null : JSON.stringify(body), { status, headers });

  const client = (respond: () => Response | Promise<Response>, token: string | null = 'tok.en') => {
    const calls: Request[] = [];
    let ended = 0;
    const api = createApiClient({
      baseUrl: ORIGIN,
      token: () => token ?? undefined,
      onUnauthorized: () => ended++,
      fetch: async (request) => {
        calls.push(request);
        return respond();
      },
    });
    const paths = () => calls.map((c) => c.url.slice(ORIGIN.length));
    return { api, calls, paths, ended: () => ended };
  };

  it('sends the token in the Authorization header only, and the filters in the query', async () => {
    const { api, calls, paths } = client(() => answer(200, { content: [] }));
    await api.deliveries(5, { status: 'FAILED', trigger: undefined, since: '2026-11-25T10:00:00.000Z' }, 1);
    expect(paths()).toEqual([
      '/webhooks/subscriptions/5/deliveries?status=FAILED&since=2026-11-25T10%3A00%3A00.000Z&page=1&size=20',
    ]);
    expect(calls[0].headers.get('Authorization')).toBe('Bearer tok.en');
    expect(calls[0].url).not.toContain('tok.en');
  });

  it('searches by name on the full list and filters by state on the active list (which takes no index); health on both', async () => {
    const { api, paths } = client(() => answer(200, { content: [] }));
    await api.subscriptions({ index: 'erp', active: '', health: '', page: 0, tenant: 'acme' });
    await api.subscriptions({ index: 'erp', active: 'false', health: 'FAILING', page: 2, tenant: '' });
    await api.subscriptions({ index: '', active: '', health: 'UNKNOWN', page: 0, tenant: '' });
    expect(paths()).toEqual([
      '/webhooks/subscriptions?page=0&size=20&tenant=acme&index=erp',
      '/webhooks/subscriptions/active?page=2&size=20&health=FAILING&active=false',
      '/webhooks/subscriptions?page=0&size=20&health=UNKNOWN',
    ]);
  });

  it('turns a 429 into its wait, from Retry-After', async () => {
    const { api } = client(() =>
      answer(429, { status: 429, message: 'Too Many Requests' }, { 'Retry-After': '12' }),
    );
    const error = await api.subscription(1).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ApiError);
    expect((error as ApiError).retryAfterSeconds).toBe(12);
    expect((error as ApiError).message).toBe('Too many requests: wait 12 seconds before trying again.');
  });

  it('names the fields of a 400 from the error body', async () => {
    const { api } = client(() =>
      answer(400, {
        status: 400,
        message: 'Validation failed',
        errors: [{ field: 'url', message: 'url must use https' }],
      }),
    );
    await expect(api.createSubscription({ name: 'a', url: 'http://x', events: [] })).rejects.toMatchObject({
      status: 400,
      message: 'The request was refused as invalid: url: url must use https.',
    });
  });

  it('ends the session on a 401 of an authenticated call, not on a failed login', async () => {
    const withToken = client(() => answer(401, { status: 401, message: 'Unauthorized' }));
    await expect(withToken.api.me()).rejects.toMatchObject({ status: 401 });
    expect(withToken.ended()).toBe(1);
    // Even with a session still stored: a login never sends it.
    const anonymous = client(() => answer(401, { status: 401, message: 'Unauthorized' }));
    await expect(anonymous.api.login('a@b.c', 'x')).rejects.toMatchObject({ status: 401 });
    expect(anonymous.ended()).toBe(0);
    expect(anonymous.calls[0].headers.has('Authorization')).toBe(false);
  });

  it('uses the token it is given right after a login, not the stored one', async () => {
    const { api, calls } = client(() => answer(200, { user: 'a@b.c' }), 'old.token');
    await api.me('new.token');
    expect(calls[0].headers.get('Authorization')).toBe('Bearer new.token');
  });

  it('reports a network failure and a body that is not JSON in words, never throwing something else', async () => {
    const down = client(() => Promise.reject(new TypeError('Failed to fetch')));
    await expect(down.api.me()).rejects.toMatchObject({
      status: 0,
      message: expect.stringMatching(/could not be reached/),
    });
    const proxy = client(() => new Response('<html>Bad gateway</html>', { status: 502 }));
    await expect(proxy.api.me()).rejects.toMatchObject({
      status: 502,
      message: expect.stringMatching(/HTTP 502/),
    });
    const empty = client(() => new Response(null, { status: 502 }));
    await expect(empty.api.me()).rejects.toMatchObject({ status: 502 });
  });

  it('logs out with POST /auth/logout and the token, and says why when the token was not revoked', async () => {
    for (const [respond, failure] of [
      [() => answer(204, undefined), undefined],
      [() => answer(401, {}), undefined], // already refused: nothing left to revoke
      [() => answer(429, { message: 'slow down' }), 'Too many requests: wait a minute before trying again.'],
      [
        () => Promise.reject(new Error('down')),
        'The service could not be reached. Check your connection and try again.',
      ],
    ] as const) {
      const { api, calls, paths, ended } = client(respond, null);
      expect((await api.logout('the.token'))?.message).toBe(failure);
      expect(paths()).toEqual(['/auth/logout']);
      expect(calls[0].method).toBe('POST');
      expect(calls[0].headers.get('Authorization')).toBe('Bearer the.token');
      expect(ended()).toBe(0);
    }
  });
});

describe('toBody: a subscription PUT back', () => {
  const s: Subscription = {
    id: 3,
    tenant: 'acme',
    active: true,
    name: 'ERP',
    url: 'https://erp.example.com/hook',
    description: null,
    events: ['LICENCE_CREATED_SUCCESS'],
    headerName: 'X-Key',
    maxDeliveriesPerSecond: 20, // left out of the PUT: the service keeps it
    health: {
      status: 'FAILING',
      lastAttemptAt: '2026-11-25T11:00:00.000Z',
      lastSuccessAt: null,
      failingSince: '2026-11-25T10:30:00.000Z',
      consecutiveFailures: 2,
    },
    createdAt: '2026-11-25T10:00:00.000Z',
    updatedAt: '2026-11-25T10:00:00.000Z',
    _links: {
      self: { href: '/webhooks/subscriptions/3' },
      deliveries: { href: '/webhooks/subscriptions/3/deliveries' },
    },
  };

  it('keeps the header name without a value (the stored value stays) and drops read-only fields', () => {
    expect(toBody(s, { active: false })).toEqual({
      name: 'ERP',
      url: 'https://erp.example.com/hook',
      events: ['LICENCE_CREATED_SUCCESS'],
      active: false,
      headerName: 'X-Key',
    });
  });
});
