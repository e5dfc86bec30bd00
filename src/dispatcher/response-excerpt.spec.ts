import { RESPONSE_EXCERPT_BYTES, utf8Excerpt } from './response-excerpt';

describe('utf8Excerpt (the responseBody of a record)', () => {
  const excerpt = (text: string, limit = 8) =>
    utf8Excerpt(Buffer.from(text, 'utf8').subarray(0, limit + 1), limit);

  it('keeps a short answer whole', () => {
    expect(excerpt('')).toBe('');
    expect(excerpt('ok')).toBe('ok');
    expect(excerpt('12345678')).toBe('12345678'); // exactly the limit
  });

  it.each([
    ['ASCII', 'abcdefghij', 'abcdefgh'],
    ['a 2-byte character across the cut', '1234567é', '1234567'],
    ['a 2-byte character ending at the cut', '123456é9', '123456é'],
    ['a 3-byte character across the cut', '123456€', '123456'],
    ['a 3-byte character one byte in', '1234567€', '1234567'],
    ['a 4-byte character across the cut', '12345😀', '12345'],
    ['a 4-byte character ending at the cut', '1234😀56', '1234😀'],
  ])('cuts %s back to a character boundary', (_name, text, expected) => {
    const out = excerpt(text);
    expect(out).toBe(expected);
    expect(out).not.toContain('\uFFFD');
    expect(Buffer.byteLength(out)).toBeLessThanOrEqual(8);
  });

  it('keeps at most RESPONSE_EXCERPT_BYTES by default', () => {
    const bytes = Buffer.from('€'.repeat(1000));
    const out = utf8Excerpt(bytes);
    expect(out).toBe('€'.repeat(Math.floor(RESPONSE_EXCERPT_BYTES / 3)));
  });
});
