import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** ::/96 without :: and ::1: the deprecated IPv4-compatible addresses. */
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96');

/**
 * Whether an IP address is private, loopback, link-local, or otherwise not a public unicast
 * address (contract sections 5 and 6), for the subscription URL check and the proxy path's check.
 * It is the ipaddr.js classification that request-filtering-agent applies to each connection of a
 * direct delivery, so the three checks agree, with one difference: here an IPv4-mapped address
 * (::ffff:a.b.c.d) is judged as its IPv4 address, where the connect-time check refuses them all.
 *
 * Anything ipaddr.js does not call `unicast` is refused: RFC 1918, CGNAT, loopback, link-local,
 * documentation, benchmarking and reserved ranges, multicast, unique-local, and the IPv6 ranges that
 * carry or reach an IPv4 address some other way (NAT64 64:ff9b::/96, 6to4 2002::/16, Teredo
 * 2001::/32). Text that is not an address in standard form (ipaddr.js would read `1.2.3` as
 * 1.2.0.3) is refused.
 */
export function isNonPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return true;
  let ip: ipaddr.IPv4 | ipaddr.IPv6 = ipaddr.parse(address);
  if (ip.kind() === 'ipv6') {
    const v6 = ip as ipaddr.IPv6;
    if (v6.isIPv4MappedAddress()) ip = v6.toIPv4Address();
    else if (v6.match(IPV4_COMPATIBLE)) return true;
  }
  return ip.range() !== 'unicast';
}
