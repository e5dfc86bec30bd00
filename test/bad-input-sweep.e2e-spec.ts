import fc from 'fast-check';
import { UserRole, WebhookEvent } from '../src/common/reference/enums';
import type { Subscription } from '../src/subscriptions/subscription.entity';
import { createSubscription, licence, waitForDeliveries } from './support/dispatcher';
import { exampleOf, Operation, operationsOf } from './support/openapi-operations';
import { Receiver } from './support/receiver';
import { Category, CATEGORIES, SweepTarget } from './support/sweep-cases';
import { checkAnswer } from './support/sweep-checks';
import { HealthSampler, SweepClient } from './support/sweep-client';
import { testCa } from './support/test-ca';
import { startDispatcherApp } from './support/dispatcher';
import type { TestApp, TestUser } from './support/test-app';
import { uniq } from './support/test-app';

/**
 * Replaying a failure: the report names SWEEP_SEED, SWEEP_PATH and SWEEP_ONLY (the operation id);
 * run this file with them and `-t` set to the category. SWEEP_RUNS scales the runs per operation.
 */
const SEED = Number(process.env.SWEEP_SEED ?? 20261126);
const REPLAY_PATH = process.env.SWEEP_PATH;
const ONLY = process.env.SWEEP_ONLY;
const RUNS_SCALE = Number(process.env.SWEEP_RUNS ?? 1);
const CATEGORY_TIMEOUT_MS = 240_000;
const REPORT_CHARS = 4000;

interface Fixtures {
  /** Logs out once: POST /auth/logout revokes its token, so no other operation uses it. */
  leaving: TestUser;
  admin: TestUser;
  partner: TestUser;
  /** A ROLE_CLIENT user of the partner's tenant: 403 on /webhooks/** (contract section 3). */
  client: TestUser;
  /** The user PATCH /admin/users/{id} changes (nobody logs in as it). */
  patched: TestUser;
  /** The partner's subscriptions: one for GET and the tools, one PUT replaces, one DELETE takes. */
  main: Subscription;
  replaced: Subscription;
  deleted: Subscription;
  mainDeliveryId: string;
  /** Another tenant's subscription and delivery record, never to be seen or touched by the partner. */
  foreign: Subscription;
  foreignDeliveryId: string;
}

const bearer = (user: TestUser) => `Bearer ${user.token}`;

describe('Bad-input sweep: generated bad requests to every operation of the OpenAPI document (contract 4, 8)', () => {
  let t: TestApp;
  let receiver: Receiver;
  let client: SweepClient;
  let sampler: HealthSampler;
  let f: Fixtures;
  let operations: Operation[];
  let targets: SweepTarget[];

  async function publish(tenant: string): Promise<void> {
    const body = { eventType: WebhookEvent.LICENCE_CREATED_SUCCESS, tenant, licence: licence() };
    await t.http().post('/admin/licence-events').set('authorization', bearer(f.admin)).send(body).expect(202);
  }

  async function makeFixtures(): Promise<Fixtures> {
    const admin = await t.createUser({ admin: true });
    const partner = await t.createUser();
    const stranger = await t.createUser();
    const subscription = (tenant: string) =>
      createSubscription(t, { tenant, url: receiver.url(`/${uniq('hook')}`), name: uniq('sweep-sub') });
    const [main, foreign] = [await subscription(partner.tenant), await subscription(stranger.tenant)];
    f = {
      admin,
      partner,
      client: await t.createUser({ role: UserRole.ROLE_CLIENT, tenant: partner.tenant }),
      patched: await t.createUser(),
      leaving: await t.createUser(),
      main,
      replaced: await subscription(partner.tenant),
      deleted: await subscription(partner.tenant),
      foreign,
      mainDeliveryId: '',
      foreignDeliveryId: '',
    };
    await publish(partner.tenant);
    await publish(stranger.tenant);
    f.mainDeliveryId = (await waitForDeliveries(t.dataSource, main.id, 1, 15_000))[0].id;
    f.foreignDeliveryId = (await waitForDeliveries(t.dataSource, foreign.id, 1, 15_000))[0].id;
    return f;
  }

  /** A fresh valid body per operation: the document's examples, made unique or current where they must be. */
  function validBodyOf(op: Operation): (() => unknown) | undefined {
    if (!op.body) return undefined;
    const overrides: Record<string, () => object> = {
      Users_create: () => ({ email: `${uniq('sweep')}@example.com`, tenant: uniq('tenant') }),
      Users_update: () => ({ userName: 'Sweep User' }),
      Auth_login: () => ({ email: f.partner.email, password: f.partner.password }),
      Subscriptions_create: () => ({ name: uniq('sweep') }),
      Subscriptions_replace: () => ({ name: uniq('sweep') }),
      LicenceEvents_publish: () => ({
        tenant: uniq('tenant'),
        licence: exampleOf(op.body!.properties!.licence),
      }),
      Deliveries_recover: () => ({ since: new Date(Date.now() - 3_600_000).toISOString() }),
    };
    const example = exampleOf(op.body) as object;
    return () => ({ ...example, ...overrides[op.id]?.() });
  }

  function targetOf(op: Operation): SweepTarget {
    const webhooks = op.path.startsWith('/webhooks/');
    const forAdmin = op.path.startsWith('/admin/') || op.path === '/metrics';
    const subscriptionId =
      op.method === 'DELETE' ? f.deleted.id : op.method === 'PUT' ? f.replaced.id : f.main.id;
    const caller = op.id === 'Auth_logout' ? f.leaving : forAdmin ? f.admin : f.partner;
    return {
      op,
      authorization: op.public ? undefined : bearer(caller),
      forbiddenAuthorization: webhooks
        ? bearer(f.client)
        : op.path.startsWith('/admin/')
          ? bearer(f.partner)
          : undefined,
      ids: {
        id: String(op.path.startsWith('/admin/users/') ? f.patched.id : subscriptionId),
        deliveryId: f.mainDeliveryId,
        name: WebhookEvent.LICENCE_CREATED_SUCCESS,
      },
      foreignIds: webhooks ? { id: String(f.foreign.id), deliveryId: f.foreignDeliveryId } : undefined,
      validBody: validBodyOf(op),
      ignoredFields: webhooks ? ['tenant'] : [],
      secrets: forAdmin ? [] : [f.foreign.name, f.foreign.url, f.foreign.tenant],
    };
  }

  beforeAll(async () => {
    t = await startDispatcherApp();
    receiver = await Receiver.start(testCa().server);
    client = new SweepClient(t.url);
    await makeFixtures();
    const document = await client.send({ method: 'GET', path: '/openapi.json' });
    operations = operationsOf(JSON.parse(document.text));
    targets = operations.map(targetOf);
    sampler = new HealthSampler(t.url, '/health/live');
    sampler.start(250);
  });
  afterAll(async () => {
    await sampler?.stop();
    client?.close();
    await receiver?.close();
    await t?.close();
  });

  it('answers a valid request of each operation with its documented status (the base every case spoils)', async () => {
    expect(operations.length).toBeGreaterThanOrEqual(20);
    const answers: string[] = [];
    for (const target of targets) {
      const { op } = target;
      const ids =
        op.method === 'DELETE' ? { ...target.ids, id: String((await disposable()).id) } : target.ids;
      const body = target.validBody?.();
      const res = await client.send({
        method: op.method,
        path: op.path.replace(/\{(\w+)\}/g, (_, name: string) => ids[name]),
        headers: {
          ...(target.authorization ? { authorization: target.authorization } : {}),
          ...(body ? { 'content-type': 'application/json' } : {}),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      answers.push(`${op.id} ${res.status}${res.status === op.success ? '' : `: ${res.text.slice(0, 300)}`}`);
    }
    expect(answers).toEqual(targets.map(({ op }) => `${op.id} ${op.success}`));
  });

  const disposable = () =>
    createSubscription(t, { tenant: f.partner.tenant, url: receiver.url('/disposable') });

  async function sendAndCheck(
    target: SweepTarget,
    category: Category<unknown>,
    spec: unknown,
  ): Promise<void> {
    const c = category.build(target, spec);
    checkAnswer(c, await client.send(c.request), target.secrets);
  }

  /** The inputs the contract names, each tried and reported on its own, whatever the seed. */
  async function sweepExamples(target: SweepTarget, category: Category<unknown>): Promise<string[]> {
    const failures: string[] = [];
    for (const example of category.examples(target)) {
      await sendAndCheck(target, category, example).catch((error: Error) =>
        failures.push(`${target.op.id}, ${fc.stringify(example).slice(0, 200)}: ${error.message}`),
      );
    }
    return failures;
  }

  /** Generated inputs: the first failure, shrunk, with what replays it. */
  async function sweepGenerated(target: SweepTarget, category: Category<unknown>): Promise<string[]> {
    const property = fc.asyncProperty(category.specs(target), (spec) => sendAndCheck(target, category, spec));
    const details = await fc.check(property, {
      seed: SEED,
      path: REPLAY_PATH,
      numRuns: Math.max(1, Math.round(category.runs * RUNS_SCALE)),
    });
    if (!details.failed) return [];
    const replay = `SWEEP_SEED=${details.seed} SWEEP_PATH=${details.counterexamplePath} SWEEP_ONLY=${target.op.id}`;
    const counterexample = fc.stringify(details.counterexample).slice(0, REPORT_CHARS);
    return [
      `${target.op.id}, generated (replay: ${replay} -t '${category.name}'), after ${details.numRuns} runs: ` +
        `${counterexample}: ${(details.errorInstance as Error)?.message}`,
    ];
  }

  async function sweep(category: Category<unknown>): Promise<void> {
    const failures: string[] = [];
    for (const target of targets.filter((x) => category.applies(x.op) && (!ONLY || x.op.id === ONLY))) {
      if (!REPLAY_PATH) failures.push(...(await sweepExamples(target, category)));
      failures.push(...(await sweepGenerated(target, category)));
    }
    if (failures.length) throw new Error(`${failures.length} failure(s):\n\n${failures.join('\n\n')}`);
  }

  for (const category of CATEGORIES) {
    it(
      `${category.name}: never a 5xx, the error body on every 4xx, the contract's status where it names one`,
      () => sweep(category),
      CATEGORY_TIMEOUT_MS,
    );
  }

  it("leaves another tenant's subscription as it was, and /health/live answered 200 throughout", async () => {
    const [row] = await t.dataSource.query(
      'SELECT name, url, active, updated_at AS "updatedAt" FROM subscriptions WHERE id = $1',
      [f.foreign.id],
    );
    expect(row).toEqual({
      name: f.foreign.name,
      url: f.foreign.url,
      active: true,
      updatedAt: f.foreign.updatedAt,
    });
    await sampler.stop();
    expect(sampler.samples.length).toBeGreaterThan(0);
    expect(sampler.samples.filter((s) => s.status !== 200 || s.ms > 5000)).toEqual([]);
    const after = await client.send({ method: 'GET', path: '/health/live' });
    expect(after.status).toBe(200);
    console.log(
      `bad-input sweep: ${client.sent} requests (SWEEP_SEED=${SEED}), ${sampler.samples.length} health samples`,
    );
  });
});
