import { createServer, Server } from 'node:http';
import { connect, Socket } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { DELIVERY_THREAD_SCRIPT, DeliveryThreadScript } from '../src/dispatcher/delivery-thread.script';
import { tsDeliveryThreadScript } from './support/delivery-thread-script';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { serverCertificateFor, testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

type Proxy = { server: Server; port: number; targets: string[]; tunnels: Set<Socket> };

/**
 * A minimal HTTP CONNECT proxy that records the targets it tunnels to. `network` stands for what it
 * reaches: a target `host:port` (a name as the proxy itself resolves it, or an address) mapped to
 * the local `host:port` it really connects to; any other target is connected to as it is.
 */
async function startProxy(network: Record<string, string> = {}): Promise<Proxy> {
  const targets: string[] = [];
  const tunnels = new Set<Socket>();
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client: Socket, head) => {
    targets.push(req.url ?? '');
    const [host, port] = (network[req.url ?? ''] ?? req.url ?? '').split(':');
    let established = false;
    const upstream = connect(Number(port), host, () => {
      established = true;
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      upstream.write(head);
      upstream.pipe(client);
      client.pipe(upstream);
    });
    // As Squid and the like do: a receiver that cannot be reached is the proxy's 502.
    upstream.on('error', () =>
      established ? client.destroy() : client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n'),
    );
    client.on('error', () => upstream.destroy());
    for (const socket of [client, upstream]) {
      tunnels.add(socket);
      socket.once('close', () => tunnels.delete(socket));
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, targets, tunnels };
}

async function stopProxy(proxy: Proxy | undefined): Promise<void> {
  // Tunnels are no longer the server's connections: both ends of each are closed here.
  for (const socket of proxy?.tunnels ?? []) socket.destroy();
  proxy?.server.closeAllConnections();
  await new Promise((r) => proxy?.server.close(r));
}

/**
 * The delivery thread with each of `names` resolving to its answers in turn, the last one from then
 * on: names with a TTL of 0 whose owner changes the answer (DNS rebinding). Other names as usual.
 */
function threadResolving(names: Record<string, string[]>): DeliveryThreadScript {
  const thread = tsDeliveryThreadScript();
  const code = `
    const dns = require('node:dns/promises');
    const real = dns.lookup;
    const answers = ${JSON.stringify(names)};
    dns.lookup = async (host, options) => {
      const left = answers[host];
      if (!left) return real(host, options);
      const found = { address: left.length > 1 ? left.shift() : left[0], family: 4 };
      return options && options.all ? [found] : found;
    };
    ${thread.filename}`;
  return { filename: code, eval: true };
}

/** A port nothing listens on (bound, then released). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise((r) => server.close(r));
  return port;
}

describe('Dispatcher: egress proxy (WEBHOOK_PROXY_URL)', () => {
  let proxy: Awaited<ReturnType<typeof startProxy>>;
  let hook: Receiver;
  const apps: TestApp[] = [];

  beforeAll(async () => {
    proxy = await startProxy();
    hook = await Receiver.start(testCa().server, { status: 200 });
  });
  afterAll(async () => {
    for (const t of apps) await t.close();
    await hook?.close();
    await stopProxy(proxy);
  });

  const publishTo = async (t: TestApp, url: string) => {
    const tenant = uniq('tenant');
    const sub = await createSubscription(t, { tenant, url, headerName: 'X-Key', headerValue: 'k' });
    await t.app
      .get(LicenceEventPublisher)
      .emit(
        WebhookEvent.LICENCE_CREATED_SUCCESS,
        new LicenceCreatedSuccessEvent({ tenant, licence: licence() }),
      );
    return (await waitForDeliveries(t.dataSource, sub.id, 1))[0];
  };

  it('delivers through the proxy, with TLS to the receiver checked end to end', async () => {
    const t = await startDispatcherApp({ WEBHOOK_PROXY_URL: `http://127.0.0.1:${proxy.port}` });
    apps.push(t);
    const record = await publishTo(t, hook.url('/via-proxy'));
    expect(record).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200, errorMessage: null });
    expect(proxy.targets).toContain(`127.0.0.1:${hook.port}`);
    expect(hook.receipts.at(-1)).toMatchObject({ path: '/via-proxy' });
    expect(hook.receipts.at(-1)!.headers['x-key']).toBe('k');
  });

  it('checks the resolved address before asking the proxy when private networks are not allowed', async () => {
    const t = await startDispatcherApp({
      WEBHOOK_PROXY_URL: `http://127.0.0.1:${proxy.port}`,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
    });
    apps.push(t);
    const before = proxy.targets.length;
    const received = hook.receipts.length;
    const record = await publishTo(t, hook.url('/blocked', 'localhost'));
    expect(record).toMatchObject({ status: 'FAILED', httpStatusCode: null });
    expect(record.errorMessage).toBe('destination address is not public');
    expect(proxy.targets.length).toBe(before);
    expect(hook.receipts.length).toBe(received);
  });

  it('records a proxy that will not open the tunnel as no answer, not as an answer of the receiver', async () => {
    const t = await startDispatcherApp({ WEBHOOK_PROXY_URL: `http://127.0.0.1:${proxy.port}` });
    apps.push(t);
    const port = await closedPort();
    const record = await publishTo(t, `https://127.0.0.1:${port}/nobody-home`);
    expect(proxy.targets).toContain(`127.0.0.1:${port}`);
    expect(record).toMatchObject({
      status: 'FAILED',
      httpStatusCode: null,
      errorMessage: 'proxy refused the tunnel: HTTP 502 Bad Gateway',
    });
  });

  it('records an unreachable proxy as such, not as the receiver refusing', async () => {
    const port = await closedPort();
    const t = await startDispatcherApp({ WEBHOOK_PROXY_URL: `http://127.0.0.1:${port}` });
    apps.push(t);
    const received = hook.receipts.length;
    const record = await publishTo(t, hook.url('/proxy-down'));
    expect(record).toMatchObject({
      status: 'FAILED',
      httpStatusCode: null,
      errorMessage: 'proxy unreachable: connection refused',
    });
    expect(hook.receipts.length).toBe(received);
  });

  describe('a name that resolves to a public address, then to a private one (DNS rebinding)', () => {
    const PUBLIC = '93.184.216.34';
    const METADATA = '169.254.169.254';
    let site: Receiver;
    let metadata: Receiver;
    let rebinding: Proxy;
    const serverNames: Array<string | false | null> = [];
    let rebindingApp: TestApp | undefined;

    beforeAll(async () => {
      site = await Receiver.start(serverCertificateFor('rebind.example'), (req, res) => {
        serverNames.push((req.socket as TLSSocket).servername);
        res.writeHead(200).end('ok');
      });
      // Stands for the cloud metadata service: it must never get a delivery.
      metadata = await Receiver.start(serverCertificateFor('rebind.example'), { status: 200 });
      rebinding = await startProxy({
        [`${PUBLIC}:${site.port}`]: `127.0.0.1:${site.port}`,
        [`${METADATA}:${site.port}`]: `127.0.0.1:${metadata.port}`,
        // The proxy's own look-up of a name comes second, and gets the private address.
        [`rebind.example:${site.port}`]: `127.0.0.1:${metadata.port}`,
        [`wrong-cert.example:${hook.port}`]: `127.0.0.1:${metadata.port}`,
        [`${PUBLIC}:${hook.port}`]: `127.0.0.1:${hook.port}`,
      });
    });
    afterAll(async () => {
      await rebindingApp?.close(); // its kept-alive tunnels first: the proxy's close waits for them
      await site?.close();
      await metadata?.close();
      await stopProxy(rebinding);
    });

    it('asks the proxy for the address it checked, never the name; TLS and Host stay on the name', async () => {
      const t = (rebindingApp = await startDispatcherApp(
        { WEBHOOK_PROXY_URL: `http://127.0.0.1:${rebinding.port}`, WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false' },
        {
          configure: (builder) =>
            builder.overrideProvider(DELIVERY_THREAD_SCRIPT).useValue(
              threadResolving({
                'rebind.example': [PUBLIC, METADATA],
                'wrong-cert.example': [PUBLIC, METADATA],
              }),
            ),
        },
      ));
      const record = await publishTo(t, `https://rebind.example:${site.port}/rebind`);
      expect(record).toMatchObject({ status: 'SUCCESS', httpStatusCode: 200, errorMessage: null });
      expect(rebinding.targets).toEqual([`${PUBLIC}:${site.port}`]);
      expect(metadata.receipts).toHaveLength(0);
      expect(site.receipts).toHaveLength(1);
      expect(site.receipts[0]).toMatchObject({ path: '/rebind' });
      expect(site.receipts[0].headers.host).toBe(`rebind.example:${site.port}`);
      expect(serverNames).toEqual(['rebind.example']);

      // The certificate is still checked against the name: this one is for localhost only.
      const received = hook.receipts.length;
      const refused = await publishTo(t, `https://wrong-cert.example:${hook.port}/wrong-cert`);
      expect(refused).toMatchObject({
        status: 'FAILED',
        httpStatusCode: null,
        errorMessage: 'TLS error: certificate does not match wrong-cert.example',
      });
      expect(rebinding.targets).toEqual([`${PUBLIC}:${site.port}`, `${PUBLIC}:${hook.port}`]);
      expect(hook.receipts.length).toBe(received);
      expect(metadata.receipts).toHaveLength(0);
    });
  });
});
