import { createHash } from 'node:crypto';

/**
 * The id a token is logged out by (contract section 8, Logout): its `jti` claim, or, for a token
 * issued before tokens had one, `sig:` and the SHA-256 of its signature (unique to the token).
 */
export function tokenIdOf(token: string, jti: unknown): string {
  if (typeof jti === 'string') return jti;
  const signature = token.slice(token.lastIndexOf('.') + 1);
  return `sig:${createHash('sha256').update(signature).digest('base64url')}`;
}
