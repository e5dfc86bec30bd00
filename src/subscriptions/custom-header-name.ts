/** RFC 9110 section 5.6.2 `token` (tchar+). */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * Names a subscription's custom header may not take (contract section 8, Custom header names),
 * compared lower-cased: the hop-by-hop headers, those the service or HTTP sets on every delivery,
 * tracing's, Expect (it changes how the request is sent), and the names JavaScript objects treat
 * specially.
 */
const REFUSED_NAMES: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
  'host',
  'accept-encoding',
  'user-agent',
  'traceparent',
  'tracestate',
  'expect',
  '__proto__',
  'constructor',
  'prototype',
]);

/** Content-* describes the body the service sends; webhook-* are Standard Webhooks' (section 9). */
const REFUSED_PREFIXES = ['content-', 'webhook-'];

/** Why `name` cannot be a custom header's name, or undefined when it can. Used by the API and the dispatcher. */
export function customHeaderNameProblem(name: string): string | undefined {
  if (!HTTP_TOKEN.test(name)) {
    return "headerName must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)";
  }
  const lower = name.toLowerCase();
  if (REFUSED_NAMES.has(lower) || REFUSED_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
    return (
      'headerName must not be a hop-by-hop header, Host, Content-*, Accept-Encoding, User-Agent, ' +
      'webhook-*, traceparent, tracestate, Expect, __proto__, constructor or prototype'
    );
  }
  return undefined;
}
