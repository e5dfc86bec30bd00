/** RFC 9110 section 5.6.2 `token` (tchar+). */
export const HTTP_TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/** Names a subscription's custom header may not take (contract section 8), compared lower-cased. */
const HOP_BY_HOP: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-authenticate',
  'proxy-authorization',
  'proxy-connection',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Set by the service or by HTTP on every delivery (Expect changes how the request is sent). */
const SET_BY_THE_SERVICE: ReadonlySet<string> = new Set([
  'host',
  'accept-encoding',
  'user-agent',
  'traceparent',
  'tracestate',
  'expect',
]);

/** Content-* describes the body the service sends; webhook-* are Standard Webhooks' (section 9). */
const SET_BY_THE_SERVICE_PREFIXES = ['content-', 'webhook-'];

/** Names JavaScript objects treat specially: never a key of a headers object. */
const OBJECT_SPECIAL: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype']);

/** Why `name` cannot be a custom header's name, or undefined when it can. Used by the API and the dispatcher. */
export function customHeaderNameProblem(name: string): string | undefined {
  if (!HTTP_TOKEN.test(name)) {
    return "headerName must be an HTTP header name (letters, digits and !#$%&'*+-.^_`|~)";
  }
  const lower = name.toLowerCase();
  if (HOP_BY_HOP.has(lower)) return 'headerName must not be a hop-by-hop header';
  if (
    SET_BY_THE_SERVICE.has(lower) ||
    SET_BY_THE_SERVICE_PREFIXES.some((prefix) => lower.startsWith(prefix))
  ) {
    return 'headerName must not be a header the service sets itself';
  }
  if (OBJECT_SPECIAL.has(lower)) return 'headerName must not be __proto__, constructor or prototype';
  return undefined;
}
