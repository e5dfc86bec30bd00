import type { FastifyInstance, FastifyReply } from 'fastify';

/** Every response: the browser never guesses another content type (contract section 8). */
export const NOSNIFF = { name: 'X-Content-Type-Options', value: 'nosniff' } as const;

/**
 * Every response that says nothing of its own caching, so every authenticated one (a signing
 * secret, a user, a page of deliveries) is kept by no browser or proxy cache. Only public static
 * files (the portal's, Swagger UI's) set their own Cache-Control.
 */
const NO_STORE = 'no-store';

/** A Content-Security-Policy for every response under a path prefix ("/portal": the page, its files, its 404s). */
export type PoliciesByPrefix = Record<string, string>;

/** The policy of the prefix `url` lies under: "/portal", "/portal/…" and "/portal?…", never "/portalx". */
function policyFor(url: string, policies: PoliciesByPrefix): string | undefined {
  for (const prefix in policies) {
    if (url.startsWith(prefix) && (url.length === prefix.length || '/?'.includes(url[prefix.length]))) {
      return policies[prefix];
    }
  }
  return undefined;
}

/** The response headers of contract section 8 on one reply, for `url` (its path and query as sent). */
export function setSecurityHeaders(url: string, reply: FastifyReply, policies: PoliciesByPrefix): void {
  void reply.header(NOSNIFF.name, NOSNIFF.value);
  if (!reply.hasHeader('cache-control')) void reply.header('Cache-Control', NO_STORE);
  const policy = policyFor(url, policies);
  if (policy !== undefined) void reply.header('Content-Security-Policy', policy);
}

/**
 * The response headers of contract section 8, set here for every response Fastify sends, whatever
 * produced it (a controller, a guard's 401 or 429, the 404 of an unknown route, a plain route).
 * The router's own errors skip the hooks (frameworkErrors in app.factory.ts calls
 * setSecurityHeaders), and the answers Node writes before Fastify sees a request carry NOSNIFF
 * (clientError there).
 */
export function applySecurityHeaders(fastify: FastifyInstance, policies: PoliciesByPrefix): void {
  // A callback hook, not an async one: no promise and no extra microtask on every response.
  fastify.addHook('onSend', (request, reply, payload, done) => {
    setSecurityHeaders(request.url, reply, policies);
    done(null, payload);
  });
}
