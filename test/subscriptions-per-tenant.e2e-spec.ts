import { UserRole } from '../src/common/reference/enums';
import { startTestApp, TestApp, TestUser, uniq } from './support/test-app';

const PATH = '/webhooks/subscriptions';
const MAX = 3;

describe('Subscriptions per tenant (contract section 8, Bulkheads and budgets)', () => {
  let t: TestApp;
  /** A second instance on the same database: the limit holds across instances. */
  let other: TestApp;
  let admin: TestUser;

  beforeAll(async () => {
    t = await startTestApp({ SUBSCRIPTIONS_PER_TENANT_MAX: String(MAX) });
    other = await startTestApp(
      {
        SUBSCRIPTIONS_PER_TENANT_MAX: String(MAX),
        JWT_SECRET: t.env.JWT_SECRET,
        SECRETS_KEY: t.env.SECRETS_KEY,
      },
      { databaseUrl: t.databaseUrl },
    );
    admin = await t.createUser({ admin: true });
  });
  afterAll(async () => {
    await other?.close();
    await t?.close();
  });

  const body = (extra: Record<string, unknown> = {}) => ({
    name: uniq('sub'),
    url: 'https://receiver.example.com/hooks',
    events: ['LICENCE_CREATED_SUCCESS'],
    ...extra,
  });
  const create = (app: TestApp, user: TestUser, extra?: Record<string, unknown>) =>
    app.http().post(PATH).set('authorization', `Bearer ${user.token}`).send(body(extra));
  const countOf = async (tenant: string) =>
    (await t.dataSource.query(`SELECT count(*)::int AS n FROM subscriptions WHERE tenant = $1`, [tenant]))[0]
      .n as number;

  const expectLimitReached = (res: { status: number; body: Record<string, unknown> }) => {
    expect(res.status).toBe(409);
    expect(res.body).toMatchObject({ status: 409, error: 'Conflict', path: PATH });
    expect(res.body.message).toContain(`${MAX} subscriptions`);
    expect(res.body.message).toContain('SUBSCRIPTIONS_PER_TENANT_MAX');
  };

  it('refuses one more than the limit with 409; another tenant keeps its own room; a delete makes room', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const neighbour = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const ids: number[] = [];
    for (let i = 0; i < MAX; i++) ids.push((await create(t, partner).expect(200)).body.id);
    expectLimitReached(await create(t, partner));
    // An administrator setting one up on the tenant's behalf counts the same.
    expectLimitReached(await create(t, admin, { tenant: partner.tenant }));
    expect(await countOf(partner.tenant)).toBe(MAX);

    for (let i = 0; i < MAX; i++) await create(t, neighbour).expect(200);
    expectLimitReached(await create(t, neighbour));

    await t.http().delete(`${PATH}/${ids[0]}`).set('authorization', `Bearer ${partner.token}`).expect(200);
    await create(t, partner).expect(200);
    expectLimitReached(await create(t, partner));
  });

  it('creates exactly the limit from 10 concurrent creates on two instances', async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) => create(i % 2 === 0 ? t : other, partner)),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(MAX).fill(200), ...Array(10 - MAX).fill(409)]);
    for (const res of results.filter((r) => r.status === 409)) expectLimitReached(res);
    expect(await countOf(partner.tenant)).toBe(MAX);
  });

  it("reads the tenant's count from its count row, which the database keeps (no scan of its subscriptions)", async () => {
    const partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    await create(t, partner).expect(200);
    const setCount = (n: number) =>
      t.dataSource.query(`UPDATE tenant_subscription_counts SET subscriptions = $2 WHERE tenant = $1`, [
        partner.tenant,
        n,
      ]);
    await setCount(MAX);
    expectLimitReached(await create(t, partner));
    await setCount(1);
    await create(t, partner).expect(200);
    const [stored] = await t.dataSource.query(
      `SELECT subscriptions FROM tenant_subscription_counts WHERE tenant = $1`,
      [partner.tenant],
    );
    expect(stored.subscriptions).toBe(await countOf(partner.tenant));
  });

  it("counts an administrator's move to another tenant against that tenant's limit", async () => {
    const full = await t.createUser({ role: UserRole.ROLE_PARTNER });
    const roomy = await t.createUser({ role: UserRole.ROLE_PARTNER });
    for (let i = 0; i < MAX; i++) await create(t, full).expect(200);
    const moving = (await create(t, roomy).expect(200)).body;
    const put = (id: number, extra: Record<string, unknown>) =>
      t.http().put(`${PATH}/${id}`).set('authorization', `Bearer ${admin.token}`).send(body(extra));

    const refused = await put(moving.id, { tenant: full.tenant });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toContain('SUBSCRIPTIONS_PER_TENANT_MAX');
    expect(await countOf(full.tenant)).toBe(MAX);
    expect(await countOf(roomy.tenant)).toBe(1);

    // A PUT that keeps a full tenant's subscription where it is is no move.
    const [{ id: staying }] = await t.dataSource.query(
      `SELECT id FROM subscriptions WHERE tenant = $1 LIMIT 1`,
      [full.tenant],
    );
    await put(staying, { tenant: full.tenant }).expect(200);
    // The other way there is room.
    await put(staying, { tenant: roomy.tenant }).expect(200);
    expect(await countOf(roomy.tenant)).toBe(2);
  });
});
