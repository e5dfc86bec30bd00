import pg from 'pg';
import type { DataSource } from 'typeorm';
import type { ClaimLimits, ClaimRoom } from '../src/dispatcher/admission-policy';
import type { ClaimConnection } from '../src/dispatcher/claim-connection';
import { WebhookJobsRepository } from '../src/dispatcher/webhook-jobs.repository';
import { createTestDatabase, dropTestDatabase } from './support/database';

/**
 * The claim's cost does not grow with the jobs of owners at their cap (WebhookJobsRepository,
 * claimSql): a hung receiver's backlog, or a tenant at its share during its own burst, used to be
 * walked over by every claim. Each case writes its jobs in a transaction of its own, runs the real
 * claim statements in it (nothing else sees the jobs) and reads what they fetched from
 * pg_stat_xact_user_tables, then rolls back.
 */
describe('Dispatcher: a claim beside owners at their cap', () => {
  const BACKLOG = 5_000;
  let db: { url: string; name: string };
  let client: pg.Client;
  let jobs: WebhookJobsRepository;
  /** The statements the claim ran, by name. */
  let statements: string[];

  beforeAll(async () => {
    db = await createTestDatabase();
    client = new pg.Client({ connectionString: db.url });
    await client.connect();
    const connection = {
      query: async (name: string, text: string, values: unknown[]) => {
        statements.push(name);
        return (await client.query(text, values)).rows;
      },
    } as unknown as ClaimConnection;
    jobs = new WebhookJobsRepository({} as DataSource, connection);
  });
  afterAll(async () => {
    await client?.end();
    if (db) await dropTestDatabase(db.name);
  });
  beforeEach(async () => {
    statements = [];
    await client.query('BEGIN');
  });
  afterEach(() => client.query('ROLLBACK'));

  const room = <K>(saturated: K[], fresh: number): ClaimRoom<K> => ({
    saturated,
    limited: [],
    room: [],
    fresh,
  });
  /** The limits of 64 slots (AdmissionPolicy), with the given owners at their cap. */
  const limits = (saturated: { subscriptions?: number[]; tenants?: string[] } = {}): ClaimLimits => ({
    subscriptions: room(saturated.subscriptions ?? [], 32),
    hosts: room([], 120),
    tenants: room(saturated.tenants ?? [], 120),
  });

  async function subscription(tenant: string, host: string): Promise<number> {
    const { rows } = await client.query<{ id: number }>(
      `INSERT INTO subscriptions (tenant, name, url, events)
       VALUES ($1, $2, $3, ARRAY['LICENCE_CREATED_SUCCESS']) RETURNING id`,
      [tenant, `${tenant} ${host}`, `https://${host}/hook`],
    );
    return rows[0].id;
  }

  /** `n` jobs of one new event of the subscription's tenant; their ids, oldest first. */
  async function enqueue(subscriptionId: number, n: number): Promise<string[]> {
    const { rows } = await client.query<{ id: string }>(
      `WITH event AS (
         INSERT INTO webhook_events (event_type, tenant, occurred_at, payload)
         SELECT 'LICENCE_CREATED_SUCCESS', tenant, now(), '{}' FROM subscriptions WHERE id = $1
         RETURNING id)
       INSERT INTO webhook_jobs (event_id, subscription_id)
       SELECT event.id, $1 FROM event CROSS JOIN generate_series(1, $2)
       RETURNING id`,
      [subscriptionId, n],
    );
    return rows.map((r) => r.id).sort((a, b) => Number(a) - Number(b));
  }

  /** Rows of webhook_jobs this transaction's statements fetched so far. */
  async function fetched(): Promise<number> {
    const { rows } = await client.query<{ n: string }>(
      `SELECT coalesce(idx_tup_fetch, 0) + seq_tup_read AS n FROM pg_stat_xact_user_tables
       WHERE relname = 'webhook_jobs'`,
    );
    return Number(rows[0].n);
  }

  async function claim(wanted: number, claimLimits: ClaimLimits) {
    // Statistics of the jobs written, as autovacuum keeps them for the outbox (migration WebhookJobsQueueVacuum).
    await client.query('ANALYZE webhook_jobs, webhook_events, subscriptions');
    const before = await fetched();
    const result = await jobs.claimDue({ leaseMs: 60_000, instanceId: 'test', limits: claimLimits, wanted });
    return { ...result, fetched: (await fetched()) - before };
  }

  it('reaches the jobs behind a subscription at its cap without reading its backlog', async () => {
    const hung = await subscription('tenant-a', 'hung.example');
    const other = await subscription('tenant-b', 'ok.example');
    await enqueue(hung, BACKLOG);
    const behind = await enqueue(other, 3);

    const taken = await claim(10, limits({ subscriptions: [hung] }));

    expect(taken.jobs.map((j) => j.id)).toEqual(behind);
    // The walk stopped after 8 windows of 20 (read twice: the window, then whether it stopped
    // short), then the claim by owner read the other subscription's jobs: not the 5,000.
    expect(statements).toEqual(['webhook_claim', 'webhook_claim_by_owner']);
    expect(taken.fetched).toBeLessThan(500);
  });

  it('takes nothing, and reads no backlog, for a tenant at its share', async () => {
    const subscriptions = [];
    for (let i = 0; i < 4; i++) subscriptions.push(await subscription('tenant-busy', `h${i}.example`));
    for (const id of subscriptions) await enqueue(id, BACKLOG / 4);

    const taken = await claim(10, limits({ tenants: ['tenant-busy'] }));

    expect(taken.jobs).toEqual([]);
    expect(taken.candidates).toBe(0);
    expect(taken.fetched).toBeLessThan(500);
  });

  it('by owner, takes the oldest due jobs of owners with room, up to each one’s room', async () => {
    const hung = await subscription('tenant-a', 'hung.example');
    const [b, c] = [await subscription('tenant-b', 'b.example'), await subscription('tenant-c', 'c.example')];
    await enqueue(hung, 2_000);
    const ofB = await enqueue(b, 50);
    await enqueue(hung, 2_000);
    const ofC = await enqueue(c, 5);
    // One of c's is leased already (another instance sends it): not due.
    await client.query(`UPDATE webhook_jobs SET lease_until = now() + interval '1 minute' WHERE id = $1`, [
      ofC[0],
    ]);

    const taken = await claim(40, limits({ subscriptions: [hung] }));

    expect(statements).toEqual(['webhook_claim', 'webhook_claim_by_owner']);
    // b's room here is 32 (its fresh room): its 32 oldest, then c's 4 due ones.
    expect(taken.jobs.map((j) => j.id)).toEqual([...ofB.slice(0, 32), ...ofC.slice(1)]);
    // b's room and one more were candidates: more than it took, so the worker claims again.
    expect(taken.candidates).toBe(33 + 4);
  });

  it('walks the outbox as before while owners with room hold the oldest jobs', async () => {
    const a = await subscription('tenant-a', 'a.example');
    const first = await enqueue(a, 10);
    await enqueue(a, BACKLOG);

    const taken = await claim(10, limits());

    expect(statements).toEqual(['webhook_claim']);
    expect(taken.jobs.map((j) => j.id)).toEqual(first);
    expect(taken.fetched).toBeLessThan(100);
  });
});
