import { isIPv4, isIPv6 } from 'node:net';
import { isNonPublicAddress } from '../common/network/non-public-address';
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
  if (isIPv4(host)) return isNonPublicAddress(host);
  if (host.startsWith('[') && isIPv6(host.slice(1, -1))) return isNonPublicAddress(host.slice(1, -1));
  return false;
}
