import { describe, expect, it } from '@jest/globals';
import { ApiError, describeFailure, formErrors, parseRetryAfter } from './errors';

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

describe('formErrors: a failure split between the fields a form shows and its summary', () => {
  const shown = new Set(['url', 'events']);

  it("says each shown field's errors beside it, and only the others in the summary", () => {
    const refused = new ApiError(400, 'Validation failed: url, colour, url', undefined, [
      { field: 'url', message: 'url must be an absolute https:// URL' },
      { field: 'colour', message: 'colour is not a known field' },
      { field: 'url', message: 'url must be at most 255 characters' },
    ]);
    const { byField, summary } = formErrors(refused, shown);
    expect([...byField]).toEqual([
      ['url', 'url must be an absolute https:// URL; url must be at most 255 characters'],
    ]);
    expect(summary).toBeInstanceOf(ApiError);
    expect((summary as ApiError).message).toBe(
      'The request was refused as invalid: colour: colour is not a known field.',
    );
  });

  it('leaves no summary when every error is beside its field', () => {
    const refused = new ApiError(400, 'Validation failed: events', undefined, [
      { field: 'events', message: 'events must be a non-empty array' },
    ]);
    expect(formErrors(refused, shown).summary).toBeUndefined();
  });

  it('keeps any other failure whole, for the summary', () => {
    const limited = new ApiError(429, undefined, 30);
    expect(formErrors(limited, shown)).toEqual({ byField: new Map(), summary: limited });
    expect(formErrors(undefined, shown)).toEqual({ byField: new Map(), summary: undefined });
  });
});
