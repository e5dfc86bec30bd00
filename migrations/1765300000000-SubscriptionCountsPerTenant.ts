import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The number of subscriptions of each tenant (its limit, `SUBSCRIPTIONS_PER_TENANT_MAX`), kept exact
 * by triggers on subscriptions in the transaction of every writer: a create, a delete, an
 * administrator's move to another tenant, TRUNCATE. Counting the tenant's subscriptions on each
 * create and move instead cost a scan of all of them (1.3 ms per create at 87,000, the bench's
 * api-write with the limit raised). The insert and delete triggers are statement-level: each sums
 * its rows per tenant and writes the count rows in tenant order, so concurrent writers lock them in
 * one order (no deadlock), at the end of the statement (after a delete's cascades), shortly before
 * its commit. The move's is row-level and fires only when the tenant changes, so the updates of
 * every other column (health, on each completion) pay nothing. No tenant's row means none of its
 * subscriptions. The count is not indexed, so its updates are heap-only with room on the page
 * (fillfactor).
 */
export class SubscriptionCountsPerTenant1765300000000 implements MigrationInterface {
  name = 'SubscriptionCountsPerTenant1765300000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "tenant_subscription_counts" (
        "tenant" varchar(255) NOT NULL,
        "subscriptions" integer NOT NULL,
        CONSTRAINT "PK_tenant_subscription_counts" PRIMARY KEY ("tenant")
      ) WITH (fillfactor = 50)`);
    // One function for both statement triggers: each names its transition table changed_rows.
    await q.query(`
      CREATE FUNCTION "tenant_subscription_counts_change"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO tenant_subscription_counts AS c (tenant, subscriptions)
        SELECT tenant, CASE TG_OP WHEN 'INSERT' THEN count(*) ELSE -count(*) END
        FROM changed_rows GROUP BY tenant ORDER BY tenant
        ON CONFLICT (tenant) DO UPDATE SET subscriptions = c.subscriptions + EXCLUDED.subscriptions;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE FUNCTION "tenant_subscription_counts_move"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO tenant_subscription_counts AS c (tenant, subscriptions)
        SELECT tenant, change FROM (VALUES (OLD.tenant, -1), (NEW.tenant, 1)) AS m (tenant, change)
        ORDER BY tenant
        ON CONFLICT (tenant) DO UPDATE SET subscriptions = c.subscriptions + EXCLUDED.subscriptions;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE FUNCTION "tenant_subscription_counts_clear"() RETURNS trigger LANGUAGE plpgsql AS $$
      BEGIN
        DELETE FROM tenant_subscription_counts;
        RETURN NULL;
      END
      $$`);
    await q.query(`
      CREATE TRIGGER "TRG_tenant_subscription_counts_add" AFTER INSERT ON "subscriptions"
      REFERENCING NEW TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION "tenant_subscription_counts_change"()`);
    await q.query(`
      CREATE TRIGGER "TRG_tenant_subscription_counts_remove" AFTER DELETE ON "subscriptions"
      REFERENCING OLD TABLE AS changed_rows
      FOR EACH STATEMENT EXECUTE FUNCTION "tenant_subscription_counts_change"()`);
    await q.query(`
      CREATE TRIGGER "TRG_tenant_subscription_counts_move" AFTER UPDATE OF "tenant" ON "subscriptions"
      FOR EACH ROW WHEN (OLD."tenant" IS DISTINCT FROM NEW."tenant")
      EXECUTE FUNCTION "tenant_subscription_counts_move"()`);
    await q.query(`
      CREATE TRIGGER "TRG_tenant_subscription_counts_clear" AFTER TRUNCATE ON "subscriptions"
      FOR EACH STATEMENT EXECUTE FUNCTION "tenant_subscription_counts_clear"()`);
    // The subscriptions already there (the table is locked meanwhile, so none is missed).
    await q.query(`LOCK TABLE "subscriptions" IN SHARE MODE`);
    await q.query(`
      INSERT INTO "tenant_subscription_counts" ("tenant", "subscriptions")
      SELECT "tenant", count(*) FROM "subscriptions" GROUP BY "tenant"`);
  }

  async down(q: QueryRunner): Promise<void> {
    for (const trigger of ['clear', 'move', 'remove', 'add'])
      await q.query(`DROP TRIGGER "TRG_tenant_subscription_counts_${trigger}" ON "subscriptions"`);
    for (const fn of ['clear', 'move', 'change'])
      await q.query(`DROP FUNCTION "tenant_subscription_counts_${fn}"()`);
    await q.query(`DROP TABLE "tenant_subscription_counts"`);
  }
}
