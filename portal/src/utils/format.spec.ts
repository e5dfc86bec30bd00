import { describe, expect, it } from '@jest/globals';
import { answerText, formatTime, outcomeText, utcInputToIso } from './format';

describe('small conversions', () => {
  it('reads a datetime-local value as UTC, and nothing from an empty or bad one', () => {
    expect(utcInputToIso('2026-11-25T13:05')).toBe('2026-11-25T13:05:00.000Z');
    expect(utcInputToIso('2026-11-25T13:05:09')).toBe('2026-11-25T13:05:09.000Z');
    expect(utcInputToIso('')).toBeUndefined();
    expect(utcInputToIso('not a date')).toBeUndefined();
    expect(utcInputToIso('2026-13-45T25:99')).toBeUndefined();
  });

  it('writes a UTC instant short', () => {
    expect(formatTime('2026-11-25T13:05:09.123Z')).toBe('2026-11-25 13:05:09 UTC');
    expect(formatTime(null)).toBe('—');
  });

  it("says an attempt's outcome in one line", () => {
    expect(outcomeText({ status: 'SUCCESS', httpStatusCode: 200, errorMessage: null, durationMs: 12 })).toBe(
      'SUCCESS (HTTP 200, 12 ms)',
    );
    expect(
      outcomeText({
        status: 'FAILED',
        httpStatusCode: null,
        errorMessage: 'connection refused',
        durationMs: null,
      }),
    ).toBe('FAILED (no answer): connection refused');
    expect(answerText({ httpStatusCode: 503, durationMs: 40 })).toBe('HTTP 503 · 40 ms');
    expect(answerText({ httpStatusCode: null, durationMs: null })).toBe('no answer');
  });
});
