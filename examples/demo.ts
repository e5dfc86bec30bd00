/**
 * `npm run demo`: the README's quick tour in one go, against an embedded database in a temporary
 * folder. Starts the service and the example receiver, creates a partner user as administrator,
 * logs in, creates two subscriptions (one with the right shared secret, one with a wrong one),
 * publishes a licence event and prints the delivery history: one SUCCESS and one FAILED. Then the
 * partner tools (contract section 9): the wrong secret fixed, the FAILED delivery resent (a RESEND
 * attempt that succeeds), and a test event (a TEST attempt) with its record's detail.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generate } from 'selfsigned';
import { createReceiver, LicenceEvent } from './receiver/receiver';

const step = (title: string, detail?: unknown) => {
  console.log(`\n== ${title}`);
  if (detail !== undefined)
    console.log(typeof detail === 'string' ? detail : JSON.stringify(detail, null, 2));
};

async function call(base: string, method: string, path: string, token?: string, body?: unknown) {
  const res = await fetch(base + path, {
    method,
    headers: {
      accept: 'application/hal+json',
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...(token ? { authorization: `Bearer ${token}` } : {}),
    },
    body: body !== undefined ? JSON.stringify(body) : undefined,
  });
  const text = await res.text();
  const json = text ? JSON.parse(text) : undefined;
  if (res.status >= 400) throw new Error(`${method} ${path} → ${res.status}: ${text}`);
  return json;
}

/** A CA and a certificate for localhost signed by it; the service trusts the CA (NODE_EXTRA_CA_CERTS). */
async function certificates() {
  const ca = await generate([{ name: 'commonName', value: 'Demo receiver CA' }], {
    algorithm: 'sha256',
    keySize: 2048,
    extensions: [
      { name: 'basicConstraints', cA: true, critical: true },
      { name: 'keyUsage', keyCertSign: true, cRLSign: true, critical: true },
    ],
  });
  const leaf = await generate([{ name: 'commonName', value: 'localhost' }], {
    algorithm: 'sha256',
    keySize: 2048,
    ca: { key: ca.private, cert: ca.cert },
    extensions: [
      {
        name: 'subjectAltName',
        altNames: [
          { type: 2, value: 'localhost' },
          { type: 7, ip: '127.0.0.1' },
        ],
      },
    ],
  });
  return { caCert: ca.cert, cert: leaf.cert, key: leaf.private };
}

/** Polls a filtered history until it holds a record; returns the newest. */
async function waitForRecord(base: string, token: string, path: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const page = await call(base, 'GET', path, token);
    if (page.totalElements > 0) return page.content[0];
    if (Date.now() > deadline) throw new Error(`nothing at ${path} in 30 s`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'pis-demo-'));
  const { caCert, cert, key } = await certificates();
  await writeFile(join(dir, 'ca.pem'), caCert);

  const received: LicenceEvent[] = [];
  const receiver = createReceiver(
    { cert, key },
    {
      headerName: 'X-Webhook-Secret',
      headerValue: 'demo-shared-secret',
      allowedTenants: ['acme'],
      onEvent: (event) => void received.push(event),
    },
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const receiverUrl = `https://localhost:${(receiver.address() as AddressInfo).port}/webhooks`;

  const port = 3400 + Math.floor(Math.random() * 500);
  const base = `http://127.0.0.1:${port}`;
  const service = spawn(process.execPath, [join(__dirname, '..', 'src', 'main.js')], {
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: join(dir, 'data'),
      DATABASE_URL: '',
      LOG_LEVEL: 'warn',
      BOOTSTRAP_ADMIN_EMAIL: 'admin@provider.example',
      BOOTSTRAP_ADMIN_PASSWORD: 'demo-admin-password',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true', // the receiver is on this machine
      NODE_EXTRA_CA_CERTS: join(dir, 'ca.pem'),
    },
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const exited = new Promise<number | null>((resolve) => service.on('exit', resolve));

  try {
    step('Start the service (embedded PostgreSQL in a temporary folder)', `${base}`);
    const started = Date.now();
    for (;;) {
      const ready = await fetch(`${base}/health/ready`).then(
        (r) => r.ok,
        () => false,
      );
      if (ready) break;
      if (Date.now() - started > 60_000) throw new Error('the service did not become ready in 60 s');
      await new Promise((r) => setTimeout(r, 250));
    }
    console.log(`ready in ${Date.now() - started} ms`);

    step('Log in as the bootstrap administrator: POST /auth/login');
    const admin = await call(base, 'POST', '/auth/login', undefined, {
      email: 'admin@provider.example',
      password: 'demo-admin-password',
    });
    console.log(`token ${admin.token.slice(0, 16)}…, expiresIn ${admin.expiresIn} ms`);

    step(
      'Create a partner user: POST /admin/users',
      await call(base, 'POST', '/admin/users', admin.token, {
        email: 'ops@acme.example',
        password: 'acme-demo-password',
        role: 'ROLE_PARTNER',
        tenant: 'acme',
        partnerId: 7,
        partnerName: 'Acme',
      }),
    );

    step('Log in as the partner, GET /auth/me');
    const partner = await call(base, 'POST', '/auth/login', undefined, {
      email: 'ops@acme.example',
      password: 'acme-demo-password',
    });
    console.log(JSON.stringify(await call(base, 'GET', '/auth/me', partner.token), null, 2));

    step('Create a subscription pointing at the example receiver: POST /webhooks/subscriptions');
    const good = await call(base, 'POST', '/webhooks/subscriptions', partner.token, {
      name: 'Licences to the example receiver',
      url: receiverUrl,
      events: ['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED'],
      headerName: 'X-Webhook-Secret',
      headerValue: 'demo-shared-secret',
    });
    console.log(JSON.stringify(good, null, 2));

    step('Create a second one with a wrong shared secret (the receiver will refuse it)');
    const bad = await call(base, 'POST', '/webhooks/subscriptions', partner.token, {
      name: 'Wrong secret',
      url: receiverUrl,
      events: ['LICENCE_CREATED_SUCCESS'],
      headerName: 'X-Webhook-Secret',
      headerValue: 'not-the-secret',
    });
    console.log(
      `subscription ${bad.id} (headerValue is write-only: ${'headerValue' in bad ? 'returned!' : 'not returned'})`,
    );

    step(
      'Publish a licence event as administrator: POST /admin/licence-events',
      await call(base, 'POST', '/admin/licence-events', admin.token, {
        eventType: 'LICENCE_CREATED_SUCCESS',
        tenant: 'acme',
        licence: {
          code: 'LIC-DEMO-0001',
          clientId: 101,
          planId: 3,
          name: 'Ana Souza',
          email: 'ana@client.example',
          phoneNumber: '11987654321',
          status: 'CREATED',
          maxRedemptions: 5,
          pricing: 149.9,
        },
      }),
    );

    step('Wait for both deliveries, then read the history: GET /webhooks/subscriptions/{id}/deliveries');
    const deadline = Date.now() + 30_000;
    let goodHistory, badHistory;
    for (;;) {
      goodHistory = await call(base, 'GET', `/webhooks/subscriptions/${good.id}/deliveries`, partner.token);
      badHistory = await call(base, 'GET', `/webhooks/subscriptions/${bad.id}/deliveries`, partner.token);
      if (goodHistory.totalElements > 0 && badHistory.totalElements > 0) break;
      if (Date.now() > deadline) throw new Error('deliveries did not arrive in 30 s');
      await new Promise((r) => setTimeout(r, 200));
    }
    console.log(JSON.stringify([...goodHistory.content, ...badHistory.content], null, 2));
    const statuses = [...goodHistory.content, ...badHistory.content]
      .map((d: { status: string }) => d.status)
      .sort();
    console.log(`\nhistory: ${statuses.join(', ')}; the receiver processed ${received.length} event(s)`);
    if (statuses.join(',') !== 'FAILED,SUCCESS')
      throw new Error(`expected one SUCCESS and one FAILED, got ${statuses}`);

    step('Fix the wrong secret: PUT /webhooks/subscriptions/{id}');
    await call(base, 'PUT', `/webhooks/subscriptions/${bad.id}`, partner.token, {
      name: bad.name,
      url: bad.url,
      events: bad.events,
      headerName: 'X-Webhook-Secret',
      headerValue: 'demo-shared-secret',
    });
    const failed = badHistory.content[0];
    step(
      'Resend the FAILED delivery: POST /webhooks/subscriptions/{id}/deliveries/{deliveryId}/resend',
      await call(base, 'POST', failed._links.resend.href, partner.token),
    );
    const resent = await waitForRecord(
      base,
      partner.token,
      `/webhooks/subscriptions/${bad.id}/deliveries?trigger=RESEND`,
    );
    console.log(JSON.stringify(resent, null, 2));
    console.log(`\nthe FAILED record stays; the resend is a new attempt: ${resent.trigger} ${resent.status}`);
    if (resent.status !== 'SUCCESS') throw new Error(`expected the resend to succeed, got ${resent.status}`);

    step(
      'Send a test event: POST /webhooks/subscriptions/{id}/test',
      await call(base, 'POST', `/webhooks/subscriptions/${good.id}/test`, partner.token, {}),
    );
    const test = await waitForRecord(
      base,
      partner.token,
      `/webhooks/subscriptions/${good.id}/deliveries?trigger=TEST`,
    );
    step(
      'Its record with the body sent: GET /webhooks/subscriptions/{id}/deliveries/{deliveryId}',
      await call(base, 'GET', test._links.self.href, partner.token),
    );
    if (test.status !== 'SUCCESS') throw new Error(`expected the test event to succeed, got ${test.status}`);
    step('Done');
  } finally {
    service.kill('SIGTERM');
    const code = await exited;
    receiver.close();
    await rm(dir, { recursive: true, force: true });
    if (code !== 0) console.error(`service exited with ${code}`);
  }
}

main().catch((error: unknown) => {
  console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
