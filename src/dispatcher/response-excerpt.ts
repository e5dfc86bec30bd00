import type { Readable } from 'node:stream';

/** The first bytes of the receiver's answer kept on the record (contract section 9). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/** How many bytes a UTF-8 character starting with `lead` takes; 0 when `lead` cannot start one. */
function utf8Length(lead: number): number {
  if (lead < 0x80) return 1;
  if (lead >= 0xc2 && lead <= 0xdf) return 2;
  if (lead >= 0xe0 && lead <= 0xef) return 3;
  if (lead >= 0xf0 && lead <= 0xf4) return 4;
  return 0;
}

/**
 * Where to cut `bytes` at `limit` so that no well-formed character is broken: before a character
 * that starts within its last 3 bytes and would end past the cut. Anything else (binary, invalid
 * sequences) is cut at `limit` itself.
 */
function characterBoundary(bytes: Buffer, limit: number): number {
  if (bytes.length <= limit) return bytes.length;
  for (let start = limit - 1; start >= Math.max(0, limit - 3); start--) {
    if ((bytes[start] & 0xc0) === 0x80) continue; // a continuation byte: the lead is further back
    const length = utf8Length(bytes[start]);
    return length > 1 && start + length > limit ? start : limit;
  }
  return limit;
}

/**
 * The first `limit` bytes of `bytes` as UTF-8 text (contract section 8, "What receivers answer"), cut
 * back to a character boundary so no character is broken; invalid sequences and NUL (which a
 * PostgreSQL text column refuses) become U+FFFD. `bytes` may hold one byte more than `limit`: it
 * tells whether the byte at the cut continues a character.
 */
export function utf8Excerpt(bytes: Buffer, limit = RESPONSE_EXCERPT_BYTES): string {
  // Buffer's UTF-8 decoder replaces each invalid sequence with U+FFFD already.
  return bytes.subarray(0, characterBoundary(bytes, limit)).toString('utf8').replaceAll('\0', '\uFFFD');
}

/**
 * Reads the response up to `cap` bytes, keeping only its first RESPONSE_EXCERPT_BYTES (plus one, to
 * cut on a character boundary) as text; the rest is dropped as it arrives. Never rejects.
 */
export function readExcerpt(stream: Readable, cap: number): Promise<string> {
  return new Promise((resolve) => {
    const kept: Buffer[] = [];
    let keptBytes = 0;
    let read = 0;
    const done = () => {
      stream.removeAllListeners('data');
      resolve(utf8Excerpt(Buffer.concat(kept, keptBytes)));
    };
    stream.on('data', (chunk: Buffer) => {
      if (keptBytes <= RESPONSE_EXCERPT_BYTES) {
        const piece = chunk.subarray(0, RESPONSE_EXCERPT_BYTES + 1 - keptBytes);
        kept.push(piece);
        keptBytes += piece.length;
      }
      read += chunk.length;
      if (read > cap) {
        stream.destroy(); // the connection is not reused; the receiver talked too much
        done();
      }
    });
    stream.once('end', done);
    stream.once('error', done);
    stream.once('close', done);
  });
}
