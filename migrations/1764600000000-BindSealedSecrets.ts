import { MigrationInterface, QueryRunner } from 'typeorm';
import { SecretBox } from '../src/common/crypto/secret-box';
import { secretsKeyFrom } from '../src/config/configuration';
import { sealedIn } from '../src/subscriptions/sealed-columns';

/** The sealed columns of `subscriptions`, each with the place its values are bound to. */
const SEALED_COLUMNS: Array<[string, (id: number) => string]> = [
  ['header_value_encrypted', sealedIn.headerValue],
  ['signing_secret_encrypted', sealedIn.signingSecret],
  ['previous_signing_secret_encrypted', sealedIn.previousSigningSecret],
];
const BATCH = 1000;

type Reseal = (box: SecretBox, sealed: string, place: string) => string;

/**
 * Binds every sealed value to its row and column (contract section 8, Secrets at rest): each `v1.`
 * value is opened and sealed again as `v2.` with its place as AES-GCM additional data (SecretBox).
 * SECRETS_KEY is read as the service reads it, and only when there is a value to re-seal. A value
 * SECRETS_KEY does not open stops the migration, naming its row and column: re-sealed with another
 * key it would be lost, left as it is the service would refuse it anyway. The way back seals them
 * without their place again.
 */
export class BindSealedSecrets1764600000000 implements MigrationInterface {
  name = 'BindSealedSecrets1764600000000';

  async up(q: QueryRunner): Promise<void> {
    await resealAll(q, 'v1.', (box, sealed, place) => box.seal(box.openUnbound(sealed), place));
  }

  async down(q: QueryRunner): Promise<void> {
    await resealAll(q, 'v2.', (box, sealed, place) => box.sealUnbound(box.open(sealed, place)));
  }
}

async function resealAll(q: QueryRunner, version: string, reseal: Reseal): Promise<void> {
  let box: SecretBox | undefined;
  for (const [column, place] of SEALED_COLUMNS) {
    for (let after = 0; ;) {
      const rows = (await q.query(
        `SELECT id, "${column}" AS sealed FROM subscriptions
         WHERE id > $1 AND starts_with("${column}", $2) ORDER BY id LIMIT ${BATCH}`,
        [after, version],
      )) as Array<{ id: number; sealed: string }>;
      if (rows.length === 0) break;
      box ??= SecretBox.withKey(secretsKeyFrom());
      const resealed = rows.map((row) => resealOne(box!, row, column, place, reseal));
      await q.query(
        `UPDATE subscriptions s SET "${column}" = f.sealed
         FROM unnest($1::int[], $2::text[]) AS f(id, sealed) WHERE s.id = f.id`,
        [rows.map((row) => row.id), resealed],
      );
      after = rows[rows.length - 1].id;
    }
  }
}

function resealOne(
  box: SecretBox,
  row: { id: number; sealed: string },
  column: string,
  place: (id: number) => string,
  reseal: Reseal,
): string {
  try {
    return reseal(box, row.sealed, place(row.id));
  } catch {
    throw new Error(
      `subscriptions ${row.id} ${column} does not open with SECRETS_KEY: set the SECRETS_KEY it was ` +
        `sealed with, or set the value to NULL (a signing secret is then made anew)`,
    );
  }
}
