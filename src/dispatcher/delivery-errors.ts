/** How a delivery that got no answer is described on its record (contract sections 6 and 8). */
import { isIP } from 'node:net';
import type { AxiosError } from 'axios';

/** Contract section 8: a refused destination never names the address its host resolved to. */
export const NOT_PUBLIC = 'destination address is not public';
/** What may be an IP literal in an error text of Node or a library ("connect EHOSTDOWN 10.0.0.7:443"). */
const ADDRESS_LIKE = /(?<![\w:.])(?:[0-9a-f]*:[0-9a-f:.]*[0-9a-f]|(?:\d{1,3}\.){3}\d{1,3})(?!\w)/gi;

export class BlockedAddressError extends Error {}

/** The egress proxy did not open a tunnel to the receiver: the receiver gave no answer. */
export class ProxyError extends Error {
  /** `reason`: why the proxy could not be reached (a connection error), if that was the trouble. */
  constructor(
    message: string,
    readonly proxyHost: string,
    readonly reason?: unknown,
  ) {
    super(message);
  }
}

const TLS_UNTRUSTED = new Set([
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_SIGNATURE_FAILURE',
]);

/** A readable errorMessage for a request that got no answer; never includes headers or addresses. */
export function describeFailure(error: unknown, host: string): string {
  const err = error as AxiosError & { cause?: { code?: string; message?: string } };
  // Thrown by the proxy agent's address check, and given to the request as its cause.
  if (error instanceof BlockedAddressError || err.cause instanceof BlockedAddressError) return NOT_PUBLIC;
  if (err.cause instanceof ProxyError) {
    const { message, proxyHost, reason } = err.cause;
    return reason === undefined ? message : `${message}: ${describeFailure(reason, proxyHost)}`;
  }
  const code = err.code ?? err.cause?.code;
  const message = String(err.message ?? err.cause?.message ?? error);
  // request-filtering-agent: "DNS lookup 127.0.0.1(family:4, host:localhost) is not allowed. ..."
  if (/DNS lookup \S+?\(.*is not allowed/.test(message)) return NOT_PUBLIC;
  if (code && TLS_UNTRUSTED.has(code)) return `TLS error: certificate not trusted (${code})`;
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused';
    case 'ENOTFOUND':
      return `DNS lookup failed: ${host} not found`;
    case 'EAI_AGAIN':
      return `DNS lookup failed: ${host} (temporary failure)`;
    case 'ECONNRESET':
    case 'EPIPE':
      return 'connection reset by the receiver';
    case 'ETIMEDOUT':
      return 'connection timed out';
    case 'EHOSTUNREACH':
      return 'host unreachable';
    case 'ENETUNREACH':
      return 'network unreachable';
    case 'CERT_HAS_EXPIRED':
      return 'TLS error: certificate has expired';
    case 'CERT_NOT_YET_VALID':
      return 'TLS error: certificate is not yet valid';
    case 'ERR_TLS_CERT_ALTNAME_INVALID':
      return `TLS error: certificate does not match ${host}`;
    default:
      if (code && (/^ERR_SSL_|^ERR_TLS_/.test(code) || code === 'EPROTO'))
        return `TLS error: ${withoutAddresses(message)}`;
      if (/socket hang up/i.test(message)) return 'connection closed by the receiver without an answer';
      return `request failed: ${code ?? withoutAddresses(message)}`;
  }
}

/** Free text from Node or a library may name the address a host resolved to: never recorded. */
function withoutAddresses(message: string): string {
  return message.replace(ADDRESS_LIKE, (match) => (isIP(match) ? '(address)' : match));
}
