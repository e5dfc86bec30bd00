import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Per-user token version (contract section 8, Revocation): tokens carry the version they were
 * issued under, and a password, enabled, role or administrator change moves it on, so every
 * older token is refused. A counter rather than a time: JWT `iat` is in whole seconds and clocks
 * of instances differ, a version compares exactly.
 */
export class UserTokenVersion1764100000000 implements MigrationInterface {
  name = 'UserTokenVersion1764100000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "users" ADD "token_version" integer NOT NULL DEFAULT 0`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE "users" DROP COLUMN "token_version"`);
  }
}
