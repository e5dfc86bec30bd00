import type { TrustProxy } from '../../config/environment';

/** Fastify's trust function: is the peer `hop` steps from the socket (0: the socket's) a proxy? */
export type TrustProxyFunction = (address: string, hop: number) => boolean;

/**
 * TRUST_PROXY as Fastify takes it. A hop count becomes the trust function Fastify built from one
 * before 5.12 (the nearest `hops` peers are proxies, whatever their addresses): Fastify 5.12 trusts
 * nobody for a number, since a count cannot tell a proxy from a client that reaches the service
 * directly and writes its own X-Forwarded-For (CVE-2026-16732). The contract keeps the hop count for
 * a service reachable only through its proxies; anywhere else, list the proxies' addresses.
 */
export function fastifyTrustProxy(trustProxy: TrustProxy): boolean | string[] | TrustProxyFunction {
  if (typeof trustProxy !== 'number') return trustProxy;
  const hops = trustProxy;
  return (_address, hop) => hop < hops;
}
