import { createServer, Server } from 'node:http';
import { connect } from 'node:net';
import { WebhookEvent } from '../src/common/reference/enums';
import { LicenceCreatedSuccessEvent } from '../src/licence-events/licence-created-success.event';
import { LicenceEventPublisher } from '../src/dispatcher/licence-event.publisher';
import { createSubscription, licence, startDispatcherApp, waitForDeliveries } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import type { TestApp } from './support/test-app';
import { uniq } from './support/test-app';

/** A minimal HTTP CONNECT proxy that records the targets it tunnels to. */
async function startProxy(): Promise<{ server: Server; port: number; targets: string[] }> {
  const targets: string[] = [];
  const server = createServer((_req, res) => res.writeHead(405).end());
  server.on('connect', (req, client, head) => {
    targets.push(req.url ?? '');
    const [host, port] = (req.url ?? '').split(':');
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
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { server, port: (server.address() as { port: number }).port, targets };
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
    proxy?.server.closeAllConnections();
    await new Promise((r) => proxy?.server.close(r));
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
});
