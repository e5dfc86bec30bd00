import { rootCertificates } from 'node:tls';
import type { DataSource } from 'typeorm';
import { SecretBox } from '../../src/common/crypto/secret-box';
import { LicenceStatus, WebhookEvent } from '../../src/common/reference/enums';
import type { LicencePayload } from '../../src/licence-events/licence-payloads';
import { WEBHOOK_TLS_OPTIONS } from '../../src/dispatcher/webhook-tls';
import { sealedIn } from '../../src/subscriptions/sealed-columns';
import { generateSigningSecret } from '../../src/subscriptions/signing-secret';
import { Subscription } from '../../src/subscriptions/subscription.entity';
import { testCa } from './test-ca';
import { startTestApp, TestApp, TestAppOptions, uniq } from './test-app';

/**
 * The app under test trusting the test CA (as NODE_EXTRA_CA_CERTS does in production). Everything
 * else is the real AppModule. Deliveries time out after 10 s: generous, since a cold delivery
 * thread's first TLS set-up can be slow on a busy machine; a test about time-outs or leases sets its
 * own WEBHOOK_TIMEOUT_MS.
 */
export function startDispatcherApp(
  overrides: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const ca = testCa();
  return startTestApp(
    { WEBHOOK_TIMEOUT_MS: '10000', SHUTDOWN_GRACE_MS: '500', ...overrides },
    {
      ...options,
      configure: (builder) => {
        builder.overrideProvider(WEBHOOK_TLS_OPTIONS).useValue({ ca: [...rootCertificates, ca.certPem] });
        options.configure?.(builder);
      },
    },
  );
}

export interface SubscriptionInit {
  tenant: string;
  url: string;
  events?: WebhookEvent[];
  active?: boolean;
  name?: string;
  headerName?: string;
  headerValue?: string;
}

/**
 * Inserts a subscription through the repository (the REST API belongs to another module and
 * rejects literal private addresses); the header value and a new signing secret are sealed like
 * the API does (signingSecretOf reads the secret back).
 */
export async function createSubscription(t: TestApp, init: SubscriptionInit): Promise<Subscription> {
  const box = SecretBox.withKey(Buffer.from(t.env.SECRETS_KEY, 'base64'));
  const repo = t.dataSource.getRepository(Subscription);
  const saved = await repo.save(
    repo.create({
      tenant: init.tenant,
      url: init.url,
      name: init.name ?? uniq('sub'),
      description: null,
      active: init.active ?? true,
      events: init.events ?? [WebhookEvent.LICENCE_CREATED_SUCCESS, WebhookEvent.LICENCE_CREATED_FAILED],
      headerName: init.headerName ?? null,
    }),
  );
  // Sealed once the row has its id: each value is bound to its row.
  const sealed = {
    headerValueEncrypted: init.headerValue
      ? box.seal(init.headerValue, sealedIn.headerValue(saved.id))
      : null,
    signingSecretEncrypted: box.seal(generateSigningSecret(), sealedIn.signingSecret(saved.id)),
  };
  await repo.update(saved.id, sealed);
  const { updatedAt } = await repo.findOneByOrFail({ id: saved.id }); // as the sealing update left it
  return Object.assign(saved, sealed, { updatedAt });
}

/** The `whsec_…` signing secret of a subscription made by createSubscription. */
export function signingSecretOf(t: TestApp, subscription: Subscription): string {
  const box = SecretBox.withKey(Buffer.from(t.env.SECRETS_KEY, 'base64'));
  return box.open(subscription.signingSecretEncrypted!, sealedIn.signingSecret(subscription.id));
}

export function licence(overrides: Partial<LicencePayload> = {}): LicencePayload {
  return {
    code: uniq('LIC'),
    clientId: 7,
    planId: 3,
    name: 'Maria Silva',
    email: 'maria@example.com',
    phoneNumber: '11987654321',
    status: LicenceStatus.CREATED,
    maxRedemptions: 5,
    pricing: 19.9,
    ...overrides,
  };
}

export interface DeliveryRow {
  id: string;
  eventId: string;
  subscriptionId: number;
  eventType: string;
  status: string;
  httpStatusCode: number | null;
  errorMessage: string | null;
  sentAt: Date;
  createdAt: Date;
}

export async function deliveriesOf(dataSource: DataSource, subscriptionId: number): Promise<DeliveryRow[]> {
  return dataSource.query(
    `SELECT id, event_id AS "eventId", subscription_id AS "subscriptionId", event_type AS "eventType", status,
            http_status_code AS "httpStatusCode", error_message AS "errorMessage", sent_at AS "sentAt",
            created_at AS "createdAt"
     FROM webhook_deliveries WHERE subscription_id = $1 ORDER BY id`,
    [subscriptionId],
  );
}

export async function pendingJobs(dataSource: DataSource, subscriptionId?: number): Promise<number> {
  const [row] = await dataSource.query(
    `SELECT count(*)::int AS n FROM webhook_jobs WHERE $1::int IS NULL OR subscription_id = $1`,
    [subscriptionId ?? null],
  );
  return row.n;
}

/** Polls until `count` delivery records exist for the subscription. */
export async function waitForDeliveries(
  dataSource: DataSource,
  subscriptionId: number,
  count: number,
  timeoutMs = 10_000,
): Promise<DeliveryRow[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const rows = await deliveriesOf(dataSource, subscriptionId);
    if (rows.length >= count) return rows;
    if (Date.now() > deadline) {
      throw new Error(`subscription ${subscriptionId}: ${rows.length} delivery records, expected ${count}`);
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
