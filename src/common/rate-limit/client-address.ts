import ipaddr from 'ipaddr.js';

/**
 * Who a client is for rate limits (contract section 8): its IPv4 address, or the /64 of its IPv6
 * address (one subscriber's network: an attacker holds a whole /64). IPv4-mapped IPv6 addresses
 * count as their IPv4 address. Fastify's request.ip already applied TRUST_PROXY.
 */
export function clientKey(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  const parts = (address as ipaddr.IPv6).parts.slice(0, 4);
  return `${new ipaddr.IPv6([...parts, 0, 0, 0, 0]).toString()}/64`;
}
