/**
 * `Authorization: Bearer <token>` exactly (contract section 8): the scheme (case-insensitive, RFC
 * 7235), one space, and a token of RFC 6750 `b64token` characters, nothing before or after.
 */
const BEARER = /^Bearer ([A-Za-z0-9\-._~+/]+=*)$/i;

/** The token of a well-formed Authorization header, else undefined (the request is then a 401). */
export function bearerToken(header: unknown): string | undefined {
  return typeof header === 'string' ? BEARER.exec(header)?.[1] : undefined;
}
