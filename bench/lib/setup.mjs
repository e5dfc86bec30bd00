// Set-up of a bench run: its database, users and subscriptions.
import { randomBytes } from 'node:crypto';
import { URL } from 'node:url';
import pg from 'pg';
import { onCleanup } from './processes.mjs';
import { call } from './service.mjs';
import { signSubscriptions } from './signing.mjs';
import { ctx, log, now, size } from './run-context.mjs';

export async function createDatabaseOnServer(serverUrl) {
  const name = `pis_bench_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  onCleanup(async () => {
    const c = new pg.Client({ connectionString: serverUrl });
    await c.connect();
    try {
      await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
    } finally {
      await c.end();
    }
  });
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function login(email, password) {
  const res = await call(ctx.service.base, 'POST', '/auth/login', { body: { email, password } });
  if (res.status !== 200) throw new Error(`login of ${email} failed: ${res.status} ${res.text}`);
  return res.body.token;
}

export async function createPartner(adminToken, email, password, tenant) {
  const res = await call(ctx.service.base, 'POST', '/admin/users', {
    token: adminToken,
    body: { email, password, role: 'ROLE_PARTNER', tenant, partnerId: 7, partnerName: `Partner ${tenant}` },
  });
  if (res.status !== 201) throw new Error(`creating ${email} failed: ${res.status} ${res.text}`);
  return login(email, password);
}

/**
 * 100,000 (quick: 10,000) subscriptions of 1,000 (100) tenants; `bench-main` holds 1,000 of them,
 * every 100th (10th) row, so its rows are spread over the table as a real tenant's would be.
 */
export async function seedSubscriptions() {
  const started = now();
  await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, description, events, created_at, updated_at)
     SELECT CASE WHEN g % ($3 / $1) = 0 THEN 'bench-main'
                 ELSE 'bench-t' || lpad((((g - g / ($3 / $1)) % $2) + 1)::text, 4, '0') END,
            g % 10 <> 0,
            'Subscription ' || g,
            'https://partner' || (g % 97) || '.example.com/hooks/licences/' || g,
            CASE WHEN g % 3 = 0 THEN 'Seeded by the bench' END,
            CASE WHEN g % 4 = 0 THEN ARRAY['LICENCE_CREATED_SUCCESS', 'LICENCE_CREATED_FAILED']
                 ELSE ARRAY['LICENCE_CREATED_SUCCESS'] END::varchar(64)[],
            now() - g * interval '1 minute',
            now() - g * interval '30 seconds'
     FROM generate_series(1, $3) AS g`,
    [size.tenantSubscriptions, size.tenants - 1, size.subscriptions],
  );
  // VACUUM too: the visibility map makes counts index-only scans, as autovacuum would in steady state.
  await ctx.pool.query('VACUUM (ANALYZE) subscriptions');
  const { rows } = await ctx.pool.query(
    `SELECT count(*) FILTER (WHERE tenant = 'bench-main')::int AS main, count(DISTINCT tenant)::int AS tenants,
            count(*)::int AS total FROM subscriptions`,
  );
  log(
    `seeded ${rows[0].total.toLocaleString('en-US')} subscriptions of ${rows[0].tenants} tenants ` +
      `(bench-main: ${rows[0].main}) in ${Math.round(now() - started)} ms`,
  );
}

/** `n` active subscriptions of `tenant`, spread over the receiver's ports; ids are contiguous. */
export async function seedReceiverTenant(tenant, n) {
  const ports = ctx.receiverPorts;
  const { rows } = await ctx.pool.query(
    `INSERT INTO subscriptions (tenant, active, name, url, events)
     SELECT $1::varchar, true, 'Bench receiver ' || g,
            'https://127.0.0.1:' || ($2::int[])[1 + (g % cardinality($2::int[]))] || '/hooks/' || $1::varchar || '/' || g,
            ARRAY['LICENCE_CREATED_SUCCESS']::varchar(64)[]
     FROM generate_series(1, $3) AS g
     RETURNING id, url`,
    [tenant, ports, n],
  );
  await signSubscriptions(ctx.pool, ctx.secretsKey, tenant); // every delivery signed, as in service
  await ctx.pool.query('ANALYZE subscriptions');
  const ids = rows.map((r) => r.id);
  return {
    tenant,
    urls: rows.map((r) => r.url),
    min: Math.min(...ids),
    max: Math.max(...ids),
    count: ids.length,
  };
}
