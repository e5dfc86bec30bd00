import { duplicateKey, LicenceEvent, safeEqual, validateEvent } from './receiver';

const success: LicenceEvent = {
  eventType: 'LICENCE_CREATED_SUCCESS',
  timestamp: '2026-11-21T10:00:00.000Z',
  tenant: 'acme',
  licence: {
    code: 'LIC-1',
    clientId: 1,
    planId: 2,
    name: 'Ana',
    email: 'ana@example.com',
    phoneNumber: '11987654321',
    status: 'CREATED',
    maxRedemptions: 1,
    pricing: 10.5,
  },
  error: null,
};

describe('example receiver checks', () => {
  it('accepts the spec payloads and rejects malformed ones', () => {
    expect(validateEvent(success)).toBeUndefined();
    expect(
      validateEvent({
        ...success,
        eventType: 'LICENCE_CREATED_FAILED',
        licence: null,
        error: { message: 'm', type: 'T' },
      }),
    ).toBeUndefined();
    expect(validateEvent({ ...success, extra: 1 })).toMatch(/unexpected fields/);
    expect(validateEvent({ ...success, timestamp: '2026-11-21' })).toBe('bad timestamp');
    expect(validateEvent({ ...success, error: { message: 'm', type: 'T' } })).toMatch(/success event/);
    expect(validateEvent([])).toBe('body is not a JSON object');
  });

  it('keys duplicates by eventType, timestamp and licence code', () => {
    expect(duplicateKey(success)).toBe(duplicateKey({ ...success }));
    expect(duplicateKey(success)).not.toBe(
      duplicateKey({ ...success, timestamp: '2026-11-21T10:00:00.001Z' }),
    );
    expect(duplicateKey(success)).not.toBe(
      duplicateKey({ ...success, licence: { ...success.licence!, code: 'LIC-2' } }),
    );
  });

  it('compares secrets of any length', () => {
    expect(safeEqual('abc', 'abc')).toBe(true);
    expect(safeEqual('abc', 'abd')).toBe(false);
    expect(safeEqual('abc', 'abcd')).toBe(false);
  });
});
