import { MigrationInterface, QueryRunner } from 'typeorm';

/** The entity's expression of subscriptions.receiver_host (SubscriptionReceiverHost made the column). */
const RECEIVER_HOST_EXPRESSION = `lower(substring("url" FROM '^[A-Za-z][A-Za-z0-9+.-]*://([^/?#]*)'))`;

/**
 * TypeORM's own table, made here rather than by TypeORM behind the migrations' back: TypeORM reads a
 * generated column's expression only from `typeorm_metadata` (never from PostgreSQL, which keeps it
 * normalised), and makes the table empty before any migration runs whenever an entity has a
 * generated column. The table is as TypeORM makes it (RdbmsSchemaBuilder.createTypeormMetadataTable;
 * IF NOT EXISTS: TypeORM has made it by now when its data source has the entities), and the row is
 * the one TypeORM would write for Subscription.receiverHost, so `migration:generate` on a migrated
 * database proposes nothing. TypeORM keys the row by the database's name: a database copied or
 * renamed afterwards has to have its row's `database` set to its new name.
 */
export class TypeormMetadata1764800300000 implements MigrationInterface {
  name = 'TypeormMetadata1764800300000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(
      `CREATE TABLE IF NOT EXISTS "typeorm_metadata" ("type" character varying NOT NULL, "database" character varying, "schema" character varying, "table" character varying, "name" character varying, "value" text)`,
    );
    await q.query(
      `INSERT INTO "typeorm_metadata"("database", "schema", "table", "type", "name", "value")
       SELECT current_database(), current_schema(), 'subscriptions', 'GENERATED_COLUMN', 'receiver_host', $1
       WHERE NOT EXISTS (SELECT 1 FROM "typeorm_metadata" WHERE "type" = 'GENERATED_COLUMN'
         AND "database" = current_database() AND "schema" = current_schema()
         AND "table" = 'subscriptions' AND "name" = 'receiver_host')`,
      [RECEIVER_HOST_EXPRESSION],
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "typeorm_metadata"`);
  }
}
