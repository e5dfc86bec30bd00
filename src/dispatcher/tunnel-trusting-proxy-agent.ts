import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { checkServerIdentity, PeerCertificate } from 'node:tls';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { isNonPublicAddress } from '../common/network/non-public-address';
import { BlockedAddressError, NOT_PUBLIC, ProxyError } from './delivery-errors';

/**
 * The receiver's address the proxy is to connect to: `host` resolved once, every address it has
 * checked (contract section 8, Egress proxy). Asking the proxy for the name would let it resolve
 * the name again, and a name with a short TTL can answer a private address the second time (DNS
 * rebinding).
 */
async function checkedAddressOf(host: string): Promise<string> {
  const addresses = await lookup(host.replace(/^\[|\]$/g, ''), { all: true });
  if (addresses.length === 0 || addresses.some((a) => isNonPublicAddress(a.address))) {
    throw new BlockedAddressError(NOT_PUBLIC);
  }
  return addresses[0].address;
}

/**
 * The egress proxy's agent (WEBHOOK_PROXY_URL). https-proxy-agent v7 applies its options (our `ca`)
 * to the connection to the proxy only, not to the TLS session with the receiver inside the tunnel:
 * pass them there too. Unless private networks are allowed (`checkAddresses`), the proxy is asked
 * to CONNECT to the checked address, the receiver's name kept for SNI, the certificate check and
 * `Host`; when they are allowed, nothing is checked and the proxy gets the name.
 */
export class TunnelTrustingProxyAgent extends HttpsProxyAgent<string> {
  constructor(
    proxy: string,
    private readonly targetTls: { ca?: string[] },
    private readonly checkAddresses: boolean,
    options: ConstructorParameters<typeof HttpsProxyAgent<string>>[1],
  ) {
    super(proxy, options);
  }

  override async connect(...[req, opts]: Parameters<HttpsProxyAgent<string>['connect']>) {
    // It also drops `host` from the tunnelled TLS options, so an IP-literal receiver would be
    // checked as "localhost": check the certificate against the receiver's real host.
    const host = opts.host ?? '';
    const target = this.checkAddresses ? await checkedAddressOf(host) : host;
    if (req.destroyed) throw new Error('request ended while resolving the receiver');
    const tunnelled = {
      ...opts,
      ...this.targetTls,
      host: target,
      servername: (opts as { servername?: string }).servername || (isIP(host) ? undefined : host),
      checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert),
    };
    return this.tunnel(req, tunnelled as typeof opts);
  }

  /**
   * A proxy that will not open the tunnel answers CONNECT with an error status; the library then
   * replays that answer to the request as if the receiver had sent it (a 502 recorded as the
   * receiver's). Fail the request instead, naming the proxy.
   */
  private async tunnel(...[req, opts]: Parameters<HttpsProxyAgent<string>['connect']>) {
    let refused: { statusCode: number; statusText: string } | undefined;
    req.once('proxyConnect', (answer: { statusCode: number; statusText: string }) => {
      if (answer.statusCode !== 200) refused = answer;
    });
    let socket: Awaited<ReturnType<HttpsProxyAgent<string>['connect']>>;
    try {
      socket = await super.connect(req, opts);
    } catch (error) {
      throw new ProxyError('proxy unreachable', this.proxy.hostname, error);
    }
    if (refused) {
      socket.destroy();
      const { statusCode, statusText } = refused;
      throw new ProxyError(
        `proxy refused the tunnel: HTTP ${statusCode}${statusText ? ` ${statusText}` : ''}`,
        this.proxy.hostname,
      );
    }
    return socket;
  }
}
