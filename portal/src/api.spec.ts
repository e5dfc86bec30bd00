import { describe, expect, it } from '@jest/globals';
import { ApiClient, ApiError, describeFailure, localInputToIso, parseRetryAfter, toBody } from './api';
import type { Subscription } from './api';
import { outcomeText } from './attempts';

describe('parseRetryAfter', () => {
  const now = Date.parse('2026-11-25T12:00:00.000Z');

  it.each([
    ['42', 42],
    [' 7 ', 7],
    ['0', 0],
    ['Wed, 25 Nov 2026 12:01:30 GMT', 90],
    ['Wed, 25 Nov 2026 11:59:00 GMT', 0],
  ])('reads %j as %d seconds', (header, seconds) => {
    expect(parseRetryAfter(header, now)).toBe(seconds);
  });

  it.each([null, undefined, '', '-5', '1.5', 'soon'])('has no wait for %j', (header) => {
    expect(parseRetryAfter(header, now)).toBeUndefined();
  });
});

describe('describeFailure: an API failure in words', () => {
  it.each([
    [0, undefined, 'The service could not be reached. Check your connection and try again.'],
    [401, undefined, 'Your session has expired: log in again.'],
    [404, undefined, 'Not found: it may have been deleted, or it is not yours to see.'],
    [429, 30, 'Too many requests: wait 30 seconds before trying again.'],
    [429, 1, 'Too many requests: wait 1 second before trying again.'],
    [429, undefined, 'Too many requests: wait a minute before trying again.'],
    [503, 5, 'The service is temporarily unavailable. Try again in 5 seconds.'],
    [503, undefined, 'The service is temporarily unavailable. Try again in a moment.'],
    [500, undefined, 'The service failed to answer this request (HTTP 500). Try again later.'],
  ])('%d (Retry-After %j)', (status, retryAfter, words) => {
    expect(describeFailure(status, 'ignored for these', retryAfter)).toBe(words);
  });

  it("names the fields of a 400 and carries the service's reason on 403 and 409", () => {
    expect(
      describeFailure(400, 'Validation failed', undefined, [{ field: 'url', message: 'url must use https' }]),
    ).toBe('The request was refused as invalid: url: url must use https.');
    expect(describeFailure(403, 'Forbidden')).toMatch(
      /^You are not allowed to do this.*The service said: Forbidden$/,
    );
    expect(describeFailure(409, 'The subscription is not active')).toBe(
      'This cannot be done in the current state. The service said: The subscription is not active',
    );
  });
});

describe('ApiClient', () => {
  const answer = (status: number, body: unknown, headers: Record<string, string> = {}) =>
    new Response(body === undefined ? null : JSON.stringify(body), { status, headers });

  const client = (respond: () => Response | Promise<Response>, token: string | null = 'tok.en') => {
    const calls: Array<{ url: string; init: RequestInit }> = [];
    let ended = 0;
    const api = new ApiClient({
      token: () => token ?? undefined,
      onUnauthorized: () => ended++,
      fetch: async (url, init) => {
        calls.push({ url, init });
        return respond();
      },
    });
    return { api, calls, ended: () => ended };
  };

  it('sends the token in the Authorization header only, and the filters in the query', async () => {
    const { api, calls } = client(() => answer(200, { content: [] }));
    await api.deliveries(5, { status: 'FAILED', trigger: undefined, since: '2026-11-25T10:00:00.000Z' }, 1);
    expect(calls[0].url).toBe(
      '/webhooks/subscriptions/5/deliveries?status=FAILED&since=2026-11-25T10%3A00%3A00.000Z&page=1&size=20',
    );
    expect(calls[0].init.headers).toMatchObject({ Authorization: 'Bearer tok.en' });
    expect(calls[0].url).not.toContain('tok.en');
  });

  it('searches by name on the full list and filters by state on the active list (which takes no index)', async () => {
    const { api, calls } = client(() => answer(200, { content: [] }));
    await api.subscriptions({ index: 'erp', page: 0, tenant: 'acme' });
    await api.subscriptions({ index: 'erp', active: 'false', page: 2 });
    expect(calls.map((c) => c.url)).toEqual([
      '/webhooks/subscriptions?page=0&tenant=acme&index=erp&size=20',
      '/webhooks/subscriptions/active?page=2&active=false&size=20',
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

  it('ends the session on a 401 of an authenticated call, not on a failed login', async () => {
    const withToken = client(() => answer(401, { status: 401, message: 'Unauthorized' }));
    await expect(withToken.api.me()).rejects.toMatchObject({ status: 401 });
    expect(withToken.ended()).toBe(1);
    // Even with a session still stored: a login never sends it.
    const anonymous = client(() => answer(401, { status: 401, message: 'Unauthorized' }));
    await expect(anonymous.api.login('a@b.c', 'x')).rejects.toMatchObject({ status: 401 });
    expect(anonymous.ended()).toBe(0);
    expect(anonymous.calls[0].init.headers).not.toHaveProperty('Authorization');
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
    createdAt: '2026-11-25T10:00:00.000Z',
    updatedAt: '2026-11-25T10:00:00.000Z',
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

describe('small conversions', () => {
  it('reads a datetime-local value as local time, and nothing from an empty or bad one', () => {
    expect(localInputToIso('2026-11-25T13:05')).toBe(new Date(2026, 10, 25, 13, 5).toISOString());
    expect(localInputToIso('')).toBeUndefined();
    expect(localInputToIso('not a date')).toBeUndefined();
  });

  it("says an attempt's outcome in one line", () => {
    const base = {
      id: 1,
      subscriptionId: 1,
      subscriptionName: 's',
      eventType: 'X',
      sentAt: '',
      createdAt: '',
    };
    expect(
      outcomeText({ ...base, status: 'SUCCESS', httpStatusCode: 200, errorMessage: null, durationMs: 12 }),
    ).toBe('SUCCESS (HTTP 200, 12 ms)');
    expect(
      outcomeText({
        ...base,
        status: 'FAILED',
        httpStatusCode: null,
        errorMessage: 'connection refused',
        durationMs: null,
      }),
    ).toBe('FAILED (no answer): connection refused');
  });
});
