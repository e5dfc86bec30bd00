import { randomBytes } from 'node:crypto';
import { ChildServices, sql } from './support/child-service';
import { licence, sleep } from './support/dispatcher';
import { ExportedSpan, OtlpSink } from './support/otlp-sink';
import type { Receiver } from './support/receiver';
import type { ServiceProcess } from './support/service-process';
import { testCa } from './support/test-ca';
import { uniq } from './support/test-app';

/** OTLP SpanKind values in OTLP/JSON. */
const SERVER = 2;
const CLIENT = 3;
const PRODUCER = 4;

const ADMIN = { email: 'tracing-admin@example.com', password: `pw-${randomBytes(9).toString('hex')}` };
/** Secrets the exported spans must never carry (contract section 12). */
const HEADER_VALUE = `hv-${randomBytes(9).toString('hex')}`;
const RECEIVER_TOKEN = `rt${randomBytes(9).toString('hex')}`;
const QUERY_TOKEN = `qt${randomBytes(9).toString('hex')}`;
const SECRETS_KEY = randomBytes(32).toString('base64');

const traceparentOf = (span: ExportedSpan) => `00-${span.traceId}-${span.spanId}-01`;

/**
 * Tracing (contract section 12) of the service as it runs in production (a child process), against
 * a real OTLP/HTTP receiver: the spans it exports, what they carry and never carry, the delivery
 * trace across the outbox and the delivery thread, the `traceparent` receivers get, and nothing at
 * all without an endpoint.
 */
describe('Tracing (contract section 12)', () => {
  const fixture = ChildServices.forSpec();
  const sinks: OtlpSink[] = [];
  afterAll(async () => {
    for (const sink of sinks) await sink.close();
  });

  async function start(otel: Record<string, string>): Promise<{ service: ServiceProcess; db: string }> {
    const db = await fixture.database();
    const service = await fixture.start({
      DATABASE_URL: db,
      NODE_EXTRA_CA_CERTS: testCa().certFile,
      JWT_SECRET: `jwt-${randomBytes(24).toString('hex')}`,
      SECRETS_KEY,
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      BOOTSTRAP_ADMIN_EMAIL: ADMIN.email,
      BOOTSTRAP_ADMIN_PASSWORD: ADMIN.password,
      ...otel,
    });
    return { service, db };
  }

  async function sink(): Promise<OtlpSink> {
    const s = await OtlpSink.start();
    sinks.push(s);
    return s;
  }

  async function call(
    service: ServiceProcess,
    method: string,
    path: string,
    init: { token?: string; body?: unknown; headers?: Record<string, string> } = {},
  ): Promise<{ status: number; body: any }> {
    const res = await fetch(`${service.url}${path}`, {
      method,
      headers: {
        ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        ...init.headers,
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    });
    const text = await res.text();
    return { status: res.status, body: text ? JSON.parse(text) : undefined };
  }

  /** Logs in, and sets up a subscription with a custom header to `receiver` (its URL has a token). */
  async function setUp(service: ServiceProcess, receiver: Receiver) {
    const login = await call(service, 'POST', '/auth/login', { body: ADMIN });
    expect(login.status).toBe(200);
    const token = login.body.token as string;
    const tenant = uniq('tenant');
    const created = await call(service, 'POST', '/webhooks/subscriptions', {
      token,
      body: {
        tenant,
        name: uniq('sub'),
        url: receiver.url(`/hook?token=${RECEIVER_TOKEN}`),
        events: ['LICENCE_CREATED_SUCCESS'],
        headerName: 'X-Hook-Key',
        headerValue: HEADER_VALUE,
      },
    });
    expect(created.status).toBe(200);
    const subscriptionId = created.body.id as number;
    const secret = await call(service, 'GET', `/webhooks/subscriptions/${subscriptionId}/secret`, { token });
    expect(secret.status).toBe(200);
    return { token, tenant, subscriptionId, signingSecret: secret.body.key as string };
  }

  const publish = async (
    service: ServiceProcess,
    token: string,
    tenant: string,
    headers: Record<string, string> = {},
  ) => {
    const res = await call(service, 'POST', '/admin/licence-events', {
      token,
      headers,
      body: { eventType: 'LICENCE_CREATED_SUCCESS', tenant, licence: licence({ code: uniq('LIC') }) },
    });
    expect(res.status).toBe(202);
    return res.body as { eventId: number };
  };

  describe('with OTEL_EXPORTER_OTLP_ENDPOINT set, OTLP/HTTP JSON', () => {
    let otlp: OtlpSink;
    let service: ServiceProcess;
    let db: string;
    let receiver: Receiver;
    let setup: Awaited<ReturnType<typeof setUp>>;
    let eventId: number;

    beforeAll(async () => {
      otlp = await sink();
      receiver = await fixture.receiver({ status: 200 });
      ({ service, db } = await start({
        OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
        OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
        OTEL_BSP_SCHEDULE_DELAY: '100',
      }));
      setup = await setUp(service, receiver);
      ({ eventId } = await publish(service, setup.token, setup.tenant));
      await receiver.waitFor(1);
    }, 120_000);

    const isAttempt = (trigger: string) => (s: ExportedSpan) =>
      s.name === 'webhook.attempt' && s.attributes['webhook.trigger'] === trigger;
    const attemptsOf = (trigger: string) => otlp.spans().filter(isAttempt(trigger));

    it('exports an HTTP server span per request: route template, method, status, no query string', async () => {
      const publishRequest = await otlp.waitForSpan(
        'POST /admin/licence-events',
        (s) => s.kind === SERVER && s.name === 'POST /admin/licence-events',
      );
      expect(publishRequest.attributes).toMatchObject({
        'http.route': '/admin/licence-events',
        'http.request.method': 'POST',
        'http.response.status_code': 202,
      });
      // A parameterised route is named after its template, not the path it was called with.
      const res = await call(
        service,
        'GET',
        `/webhooks/subscriptions/${setup.subscriptionId}?token=${QUERY_TOKEN}`,
        {
          token: setup.token,
        },
      );
      expect(res.status).toBe(200);
      const read = await otlp.waitForSpan(
        'GET /webhooks/subscriptions/:id',
        (s) => s.kind === SERVER && s.name === 'GET /webhooks/subscriptions/:id',
      );
      expect(read.attributes).toMatchObject({
        'http.route': '/webhooks/subscriptions/:id',
        'http.response.status_code': 200,
      });
      for (const span of otlp.spans().filter((s) => s.kind === SERVER)) {
        expect(
          Object.keys(span.attributes).filter((k) =>
            /^url\.(full|path|query)|http\.url|target|agent|host|peer|client|address/.test(k),
          ),
        ).toEqual([]);
      }
    });

    it('exports the publish span, with the statements it ran and its context stored with the event', async () => {
      const span = await otlp.waitForSpan('publish', (s) => s.name === 'publish');
      expect(span.kind).toBe(PRODUCER);
      expect(span.attributes).toMatchObject({
        'webhook.event_id': String(eventId),
        'webhook.event_type': 'LICENCE_CREATED_SUCCESS',
        'webhook.tenant': setup.tenant,
        'webhook.trigger': 'EVENT',
        'webhook.matched_subscriptions': 1,
      });
      const server = otlp.spans().find((s) => s.spanId === span.parentSpanId);
      expect(server?.name).toBe('POST /admin/licence-events');
      // The statement: its operation (or prepared statement's name), never its text or values. The
      // publish leases its jobs to an idle instance as it writes them (webhook_enqueue_leasing).
      const statements = otlp
        .spans()
        .filter((s) => s.parentSpanId === span.spanId && s.name.startsWith('pg.query:'));
      expect(statements.map((s) => s.name)).toEqual([
        expect.stringMatching(/^pg\.query:webhook_enqueue(_leasing)? pis_/),
      ]);
      expect(statements[0].kind).toBe(CLIENT);
      expect(statements[0].attributes).toMatchObject({ 'db.system.name': 'postgresql' });
      for (const s of otlp.spans().filter((x) => x.name.startsWith('pg.'))) {
        expect(Object.keys(s.attributes).filter((k) => /statement|query|values|connection/.test(k))).toEqual(
          [],
        );
      }
      const [row] = await sql<{ trace_context: string }>(
        db,
        'SELECT trace_context FROM webhook_events WHERE id = $1',
        [eventId],
      );
      expect(row.trace_context).toBe(traceparentOf(span));
    });

    it('exports an attempt span per delivery, linked to the publish, whose traceparent the receiver got', async () => {
      const publishSpan = await otlp.waitForSpan('publish', (s) => s.name === 'publish');
      const attempt = await otlp.waitForSpan('webhook.attempt', (s) => s.name === 'webhook.attempt');
      expect(attempt.kind).toBe(CLIENT);
      expect(attempt.traceId).toBe(publishSpan.traceId);
      expect(attempt.parentSpanId).toBe(publishSpan.spanId);
      expect(attempt.links).toEqual([
        expect.objectContaining({ traceId: publishSpan.traceId, spanId: publishSpan.spanId }),
      ]);
      expect(attempt.attributes).toMatchObject({
        'webhook.subscription_id': setup.subscriptionId,
        'webhook.event_id': String(eventId),
        'webhook.event_type': 'LICENCE_CREATED_SUCCESS',
        'webhook.trigger': 'EVENT',
        'webhook.outcome': 'SUCCESS',
        'http.response.status_code': 200,
        'webhook.receiver_host': `127.0.0.1:${receiver.port}`,
      });
      expect(attempt.attributes['webhook.duration_ms']).toEqual(expect.any(Number));
      expect(receiver.receipts[0].headers.traceparent).toBe(traceparentOf(attempt));
      // The delivery thread makes no span of its own (no client span with the receiver's URL).
      // The worker's claims and records belong to no request's trace, though a publish woke it.
      const spans = otlp.spans();
      const ownerOf = (s: ExportedSpan) => spans.find((p) => p.spanId === s.parentSpanId);
      const owners = spans.filter((s) => s.name.startsWith('pg')).map((s) => ownerOf(s));
      expect(owners.filter((p) => p?.kind !== SERVER && p?.name !== 'publish')).toEqual([]);
      const clients = otlp.spans().filter((s) => s.kind === CLIENT);
      expect(clients.every((s) => s.name === 'webhook.attempt' || s.name.startsWith('pg'))).toBe(true);
    });

    it('a resend and a test event are new attempt spans, the resend linked to the original publish', async () => {
      const publishSpan = await otlp.waitForSpan('publish', (s) => s.name === 'publish');
      const history = await call(
        service,
        'GET',
        `/webhooks/subscriptions/${setup.subscriptionId}/deliveries`,
        {
          token: setup.token,
        },
      );
      const [record] = history.body.content as Array<{ id: number }>;
      const resend = await call(
        service,
        'POST',
        `/webhooks/subscriptions/${setup.subscriptionId}/deliveries/${record.id}/resend`,
        { token: setup.token },
      );
      expect(resend.status).toBe(202);
      const [, again] = await receiver.waitFor(2);
      const resent = await otlp.waitForSpan('the resend attempt', isAttempt('RESEND'));
      expect(resent.links).toEqual([expect.objectContaining({ spanId: publishSpan.spanId })]);
      expect(resent.parentSpanId).toBe(publishSpan.spanId);
      expect(resent.attributes).toMatchObject({
        'webhook.event_id': String(eventId),
        'webhook.outcome': 'SUCCESS',
      });
      expect(again.headers.traceparent).toBe(traceparentOf(resent));
      expect(attemptsOf('EVENT')).toHaveLength(1);

      const test = await call(service, 'POST', `/webhooks/subscriptions/${setup.subscriptionId}/test`, {
        token: setup.token,
        body: {},
      });
      expect(test.status).toBe(202);
      const [, , tested] = await receiver.waitFor(3);
      const testAttempt = await otlp.waitForSpan('the test attempt', isAttempt('TEST'));
      const testPublish = otlp.spans().find((s) => s.spanId === testAttempt.parentSpanId);
      expect(testPublish).toMatchObject({
        name: 'publish',
        attributes: expect.objectContaining({ 'webhook.trigger': 'TEST' }),
      });
      expect(tested.headers.traceparent).toBe(traceparentOf(testAttempt));
    });

    it('a sampled-out publish stores no context: its delivery has no traceparent and no attempt span', async () => {
      const before = receiver.receipts.length;
      const sampledOut = `00-${randomBytes(16).toString('hex')}-${randomBytes(8).toString('hex')}-00`;
      const { eventId: quiet } = await publish(service, setup.token, setup.tenant, {
        traceparent: sampledOut,
      });
      const delivered = (await receiver.waitFor(before + 1))[before];
      expect(delivered.headers.traceparent).toBeUndefined();
      const [row] = await sql(db, 'SELECT trace_context FROM webhook_events WHERE id = $1', [quiet]);
      expect(row.trace_context).toBeNull();
      await sleep(500); // past the batch delay
      expect(otlp.spans().filter((s) => s.attributes['webhook.event_id'] === String(quiet))).toEqual([]);
    });

    it('exports no secret: password, token, header value, signing secret, query-string tokens', async () => {
      // Something that fails, for its exception events too.
      expect(
        (await call(service, 'POST', '/auth/login', { body: { ...ADMIN, password: `${ADMIN.password}x` } }))
          .status,
      ).toBe(401);
      await otlp.waitForSpan(
        'the refused login',
        (s) => s.name === 'POST /auth/login' && s.attributes['http.response.status_code'] === 401,
      );
      await sleep(300);
      const exported = otlp.text();
      expect(exported.length).toBeGreaterThan(0);
      const secrets = {
        password: ADMIN.password,
        jwt: setup.token,
        jwtSignature: setup.token.split('.')[2],
        headerValue: HEADER_VALUE,
        signingSecret: setup.signingSecret,
        signingKey: setup.signingSecret.replace(/^whsec_/, ''),
        receiverToken: RECEIVER_TOKEN,
        queryToken: QUERY_TOKEN,
        secretsKey: SECRETS_KEY,
      };
      for (const [what, secret] of Object.entries(secrets))
        expect({ what, found: exported.includes(secret) }).toEqual({ what, found: false });
      // Nor a value of a statement: the published licence's code goes in as a parameter.
      expect(exported).not.toMatch(/LIC-|"bearer/i);
    });
  });

  it('exports in protobuf by default, and what is buffered at shutdown (SIGTERM)', async () => {
    const otlp = await sink();
    // A batch delay longer than the test: only the shutdown's flush can send the request's span.
    const { service } = await start({
      OTEL_EXPORTER_OTLP_ENDPOINT: otlp.url,
      OTEL_BSP_SCHEDULE_DELAY: '600000',
    });
    expect((await call(service, 'GET', '/health/live')).status).toBe(200);
    await sleep(300);
    expect(otlp.requests).toEqual([]);
    const started = Date.now();
    expect(await service.stop('SIGTERM')).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(otlp.requests).toEqual([
      expect.objectContaining({ path: '/v1/traces', contentType: 'application/x-protobuf' }),
    ]);
    expect(otlp.requests[0].raw.toString('latin1')).toContain('GET /health/live');
  }, 120_000);

  it('without an endpoint: nothing is exported, no traceparent, no stored context', async () => {
    const otlp = await sink();
    const receiver = await fixture.receiver({ status: 200 });
    // Every other variable set, the metrics' and logs' endpoints at the sink: only the traces'
    // endpoint (or the general one) turns the SDK on, and nothing else of it runs.
    const { service, db } = await start({
      OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
      OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: `${otlp.url}/v1/metrics`,
      OTEL_EXPORTER_OTLP_LOGS_ENDPOINT: `${otlp.url}/v1/logs`,
      OTEL_METRIC_EXPORT_INTERVAL: '100',
      OTEL_BSP_SCHEDULE_DELAY: '100',
      OTEL_SERVICE_NAME: 'off',
    });
    const setup = await setUp(service, receiver);
    const { eventId } = await publish(service, setup.token, setup.tenant);
    const [delivered] = await receiver.waitFor(1);
    expect(delivered.headers.traceparent).toBeUndefined();
    expect(delivered.headers['webhook-id']).toBe(String(eventId));
    const [row] = await sql(db, 'SELECT trace_context FROM webhook_events WHERE id = $1', [eventId]);
    expect(row.trace_context).toBeNull();
    await sleep(500);
    expect(otlp.requests).toEqual([]);
  }, 120_000);
});
