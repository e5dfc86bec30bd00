import type { Readable } from 'node:stream';

/** The first bytes of the receiver's answer kept on the record (contract section 9). */
export const RESPONSE_EXCERPT_BYTES = 1024;

/**
 * The first `limit` bytes of `bytes` as UTF-8 text, cut back to a character boundary so no
 * character is broken. `bytes` may hold one byte more than `limit`: it tells whether the byte at
 * the cut continues a character.
 */
export function utf8Excerpt(bytes: Buffer, limit = RESPONSE_EXCERPT_BYTES): string {
  let end = Math.min(bytes.length, limit);
  // A continuation byte (10xxxxxx) at the cut means the character before it is incomplete.
  while (end > 0 && end < bytes.length && (bytes[end] & 0xc0) === 0x80) end--;
  return bytes.subarray(0, end).toString('utf8');
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
