import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Standard Webhooks signing secrets (contract section 9), encrypted with SECRETS_KEY like
 * header_value_encrypted, so the migration cannot make them: subscriptions of before get theirs
 * from the service at its next start (SubscriptionSecretsBootstrap), or on first use. The previous
 * secret keeps signing until `previous_signing_secret_until` (WEBHOOK_SECRET_OVERLAP_MS after a
 * rotation); the two are set and cleared together.
 */
export class SubscriptionSigningSecrets1764400100000 implements MigrationInterface {
  name = 'SubscriptionSigningSecrets1764400100000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "subscriptions"
        ADD COLUMN "signing_secret_encrypted" text,
        ADD COLUMN "previous_signing_secret_encrypted" text,
        ADD COLUMN "previous_signing_secret_until" timestamptz,
        ADD CONSTRAINT "CHK_subscriptions_previous_signing_secret" CHECK (
          ("previous_signing_secret_encrypted" IS NULL) = ("previous_signing_secret_until" IS NULL))`);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE "subscriptions"
        DROP CONSTRAINT "CHK_subscriptions_previous_signing_secret",
        DROP COLUMN "previous_signing_secret_until",
        DROP COLUMN "previous_signing_secret_encrypted",
        DROP COLUMN "signing_secret_encrypted"`);
  }
}
