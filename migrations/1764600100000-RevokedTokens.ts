import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Tokens logged out before they expire (contract section 8, Logout), by their id (the `jti` claim;
 * for a token issued before tokens had one, `sig:` and the SHA-256 of its signature). A row is
 * needed only until the token expires: logging out deletes every expired row.
 */
export class RevokedTokens1764600100000 implements MigrationInterface {
  name = 'RevokedTokens1764600100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE "revoked_tokens" (
        "token_id" text NOT NULL,
        "user_id" integer NOT NULL,
        "expires_at" timestamptz NOT NULL,
        CONSTRAINT "PK_revoked_tokens" PRIMARY KEY ("token_id"),
        CONSTRAINT "FK_revoked_tokens_user" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE
      )`);
    await q.query(`CREATE INDEX "IDX_revoked_tokens_user" ON "revoked_tokens" ("user_id")`);
    await q.query(`CREATE INDEX "IDX_revoked_tokens_expires_at" ON "revoked_tokens" ("expires_at")`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`DROP TABLE "revoked_tokens"`);
  }
}
