import { checkServerIdentity, PeerCertificate } from 'node:tls';
import { HttpsProxyAgent } from 'https-proxy-agent';
import { ProxyError } from './delivery-errors';

/**
 * https-proxy-agent v7 applies its options (our `ca`) to the connection to the proxy only, not to
 * the TLS session with the receiver inside the tunnel: pass them there too.
 */
export class TunnelTrustingProxyAgent extends HttpsProxyAgent<string> {
  constructor(
    proxy: string,
    private readonly targetTls: { ca?: string[] },
    options: ConstructorParameters<typeof HttpsProxyAgent<string>>[1],
  ) {
    super(proxy, options);
  }

  override async connect(...[req, opts]: Parameters<HttpsProxyAgent<string>['connect']>) {
    // It also drops `host` from the tunnelled TLS options, so an IP-literal receiver would be
    // checked as "localhost": check the certificate against the receiver's real host.
    const host = opts.host ?? '';
    const tunnelled = {
      ...opts,
      ...this.targetTls,
      checkServerIdentity: (_name: string, cert: PeerCertificate) => checkServerIdentity(host, cert),
    };
    // A proxy that will not open the tunnel answers CONNECT with an error status; the library then
    // replays that answer to the request as if the receiver had sent it (a 502 recorded as the
    // receiver's). Fail the request instead, naming the proxy.
    let refused: { statusCode: number; statusText: string } | undefined;
    req.once('proxyConnect', (answer: { statusCode: number; statusText: string }) => {
      if (answer.statusCode !== 200) refused = answer;
    });
    let socket: Awaited<ReturnType<HttpsProxyAgent<string>['connect']>>;
    try {
      socket = await super.connect(req, tunnelled as typeof opts);
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
