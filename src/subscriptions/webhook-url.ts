import { isIPv4, isIPv6 } from 'node:net';
import { hasControlCharacters } from '../common/validation/text-rules';

/** Contract section 5: an absolute https:// URL with a host and no user-info. */
export function webhookUrlProblem(value: string): string | undefined {
  // The WHATWG parser silently drops tabs, newlines and surrounding spaces, and accepts `https:host`
  // or `https:///host`: check the raw text first so what is stored is exactly what was checked.
  if (/\s/.test(value) || hasControlCharacters(value))
    return 'url must not contain spaces or control characters';
  if (!/^https:\/\/[^/\\]/i.test(value)) return 'url must be an absolute https:// URL';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'url must be an absolute https:// URL';
  }
  if (url.protocol !== 'https:' || url.hostname === '') return 'url must be an absolute https:// URL';
  const authority = value.slice('https://'.length).split(/[/\\?#]/)[0];
  if (url.username !== '' || url.password !== '' || authority.includes('@'))
    return 'url must not contain user information';
  return undefined;
}

/**
 * Whether the URL's host is a literal private, loopback, link-local, unspecified or otherwise
 * non-public address (or `localhost`). Names other than localhost are not resolved here: the
 * dispatcher checks the resolved address at connect time (contract section 6).
 */
export function isNonPublicHost(value: string): boolean {
  const host = new URL(value).hostname.toLowerCase().replace(/\.$/, '');
  if (host === 'localhost' || host.endsWith('.localhost')) return true; // RFC 6761: always loopback
  // The parser has already turned every IPv4 spelling (0x7f.1, 2130706433, 127.1) into dotted form.
  if (isIPv4(host)) return isNonPublicIPv4(host.split('.').map(Number));
  if (host.startsWith('[') && isIPv6(host.slice(1, -1))) return isNonPublicIPv6(ipv6Bytes(host.slice(1, -1)));
  return false;
}

const inV4 = (ip: number[], base: number[], bits: number): boolean => {
  for (let i = 0; i < 4 && bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((ip[i] & mask) !== (base[i] & mask)) return false;
  }
  return true;
};

const NON_PUBLIC_V4: Array<[number[], number]> = [
  [[0, 0, 0, 0], 8], // "this network", 0.0.0.0
  [[10, 0, 0, 0], 8], // private
  [[100, 64, 0, 0], 10], // carrier-grade NAT
  [[127, 0, 0, 0], 8], // loopback
  [[169, 254, 0, 0], 16], // link-local (and cloud metadata services)
  [[172, 16, 0, 0], 12], // private
  [[192, 0, 0, 0], 24], // IETF protocol assignments
  [[192, 168, 0, 0], 16], // private
  [[198, 18, 0, 0], 15], // benchmarking
  [[224, 0, 0, 0], 4], // multicast
  [[240, 0, 0, 0], 4], // reserved, and 255.255.255.255
];

export function isNonPublicIPv4(ip: number[]): boolean {
  return NON_PUBLIC_V4.some(([base, bits]) => inV4(ip, base, bits));
}

/** 16 bytes of a valid IPv6 literal (hex groups, `::` compression, optional dotted IPv4 tail). */
function ipv6Bytes(text: string): number[] {
  const body = text.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_m, a, b, c, d) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((n) => n.toString(16)).join(':'),
  );
  let groups = body.split(':');
  if (body.includes('::')) {
    const [head, rest] = body.split('::');
    const h = head ? head.split(':') : [];
    const r = rest ? rest.split(':') : [];
    groups = [...h, ...Array<string>(8 - h.length - r.length).fill('0'), ...r];
  }
  return groups.flatMap((g) => {
    const n = parseInt(g, 16);
    return [n >> 8, n & 0xff];
  });
}

const startsWith = (bytes: number[], prefix: number[], bits: number): boolean => {
  for (let i = 0; bits > 0; i++, bits -= 8) {
    const mask = bits >= 8 ? 0xff : (0xff << (8 - bits)) & 0xff;
    if ((bytes[i] & mask) !== (prefix[i] & mask)) return false;
  }
  return true;
};

export function isNonPublicIPv6(b: number[]): boolean {
  const zero = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  // ::/96 (unspecified ::, loopback ::1, IPv4-compatible) and ::ffff:0:0/96 (IPv4-mapped): judge
  // the embedded IPv4 address; :: and ::1 land in 0.0.0.0/8.
  if (zero(0, 12)) return isNonPublicIPv4(b.slice(12));
  if (zero(0, 10) && b[10] === 0xff && b[11] === 0xff) return isNonPublicIPv4(b.slice(12));
  // 64:ff9b::/96 (NAT64) and 2002::/16 (6to4) carry an IPv4 address too.
  if (startsWith(b, [0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0], 96))
    return isNonPublicIPv4(b.slice(12));
  if (b[0] === 0x20 && b[1] === 0x02) return isNonPublicIPv4(b.slice(2, 6));
  return (
    startsWith(b, [0xfc], 7) || // unique local fc00::/7
    startsWith(b, [0xfe, 0x80], 10) || // link-local fe80::/10
    startsWith(b, [0xfe, 0xc0], 10) || // site-local (deprecated) fec0::/10
    b[0] === 0xff || // multicast ff00::/8
    startsWith(b, [0x01, 0x00, 0, 0, 0, 0, 0, 0], 64) // discard-only 100::/64
  );
}
