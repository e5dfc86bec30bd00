import { Agent as HttpsAgent } from 'node:https';
import axios, { AxiosInstance } from 'axios';
import type { HttpsProxyAgent } from 'https-proxy-agent';
import { RequestFilteringHttpsAgent } from 'request-filtering-agent';
import type { DeliveryClientOptions } from './delivery-request';
import { TunnelTrustingProxyAgent } from './tunnel-trusting-proxy-agent';

/** The keep-alive agent every delivery goes through, by network policy (contract section 6). */
export function deliveryAgent(options: DeliveryClientOptions): HttpsAgent | HttpsProxyAgent<string> {
  const ca = options.ca ? { ca: options.ca } : {};
  const common = { keepAlive: true, scheduling: 'lifo' as const, ...ca };
  if (options.proxyUrl) {
    // The proxy connects to the address the agent resolved and checked (DNS rebinding).
    return new TunnelTrustingProxyAgent(options.proxyUrl, ca, !options.allowPrivateNetworks, common);
  }
  if (options.allowPrivateNetworks) return new HttpsAgent(common);
  // Checks the address each connection actually uses (after DNS), so a name that resolves to a
  // private address, or re-resolves to one later (DNS rebinding), is refused.
  return new RequestFilteringHttpsAgent({ ...common, allowPrivateIPAddress: false });
}

/** The HTTP client of deliveries: one POST through `agent`, the stored text as it is, no redirects. */
export function deliveryHttp(agent: HttpsAgent | HttpsProxyAgent<string>): AxiosInstance {
  const http = axios.create({
    method: 'POST',
    httpsAgent: agent,
    proxy: false, // never from HTTP(S)_PROXY: only WEBHOOK_PROXY_URL, through the agent
    maxRedirects: 0, // a 3xx is a FAILED delivery (contract section 6)
    responseType: 'stream',
    decompress: false,
    validateStatus: () => true,
    transformRequest: [(data: string) => data], // the stored JSON text, byte for byte
  });
  // axios.create copies the global defaults: header buckets for every method, the browser's XSRF
  // settings, the transitional flags. axios merges and checks them on each request, a quarter
  // of its CPU per POST (bench, dispatch); a delivery needs none of them, nor the Accept header.
  http.defaults.headers = {} as AxiosInstance['defaults']['headers'];
  delete http.defaults.xsrfCookieName;
  delete http.defaults.xsrfHeaderName;
  delete http.defaults.transitional;
  return http;
}
