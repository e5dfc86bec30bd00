import { gzipSync } from 'node:zlib';
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

  it('replaces NUL with U+FFFD (a PostgreSQL text column refuses it)', () => {
    expect(utf8Excerpt(Buffer.from('ok\0poison'))).toBe('ok\uFFFDpoison');
    expect(utf8Excerpt(Buffer.from('\0\0'))).toBe('\uFFFD\uFFFD');
  });

  it.each([
    ['a stray continuation byte', [0x61, 0x80, 0x62], 'a\uFFFDb'],
    ['a byte that never starts a character', [0x61, 0xff, 0x62], 'a\uFFFDb'],
    ['an overlong encoding', [0xc0, 0xaf], '\uFFFD\uFFFD'],
    ['an encoded surrogate', [0xed, 0xa0, 0x80], '\uFFFD\uFFFD\uFFFD'],
    ['a truncated character before the end', [0xe2, 0x82, 0x61], '\uFFFDa'],
  ])('replaces %s with U+FFFD', (_name, bytes, expected) => {
    expect(utf8Excerpt(Buffer.from(bytes))).toBe(expected);
  });

  it('keeps the first bytes of a binary answer instead of cutting it away', () => {
    // A run of continuation bytes at the cut is no character: cut at the limit, each byte one U+FFFD.
    const out = utf8Excerpt(Buffer.alloc(20, 0x80), 8);
    expect(out).toBe('\uFFFD'.repeat(8));
  });

  it('records a compressed body as its raw bytes, not decoded', () => {
    const gzip = gzipSync('{"ok":true}');
    const out = utf8Excerpt(gzip);
    expect(out).not.toContain('"ok"');
    expect(out).not.toContain('\0');
    expect(out.startsWith('\x1f\uFFFD\b')).toBe(true); // 1f 8b 08: the gzip magic, 8b replaced
    expect(Buffer.from(out, 'utf8').toString('utf8')).toBe(out); // well-formed, storable text
  });
});
