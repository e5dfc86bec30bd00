// Signing secrets of the bench's subscriptions. The bench seeds subscriptions with SQL, after the
// service started, so they have no secret (deliveries to them would go unsigned): these seal one
// for each, as the API does, with the service's own compiled code (npm run bench builds it first).
import { Buffer } from 'node:buffer';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const { SecretBox } = require('../../dist/src/common/crypto/secret-box.js');
const { generateSigningSecret } = require('../../dist/src/subscriptions/signing-secret.js');
const { sealedIn } = require('../../dist/src/subscriptions/sealed-columns.js');

/** Gives every subscription of `tenant` a new signing secret (sealed with the run's SECRETS_KEY). */
export async function signSubscriptions(pool, secretsKey, tenant) {
  const box = SecretBox.withKey(Buffer.from(secretsKey, 'base64'));
  const { rows } = await pool.query('SELECT id FROM subscriptions WHERE tenant = $1', [tenant]);
  const ids = rows.map((r) => r.id);
  const secrets = ids.map((id) => box.seal(generateSigningSecret(), sealedIn.signingSecret(id)));
  await pool.query(
    `UPDATE subscriptions s SET signing_secret_encrypted = f.secret
     FROM unnest($1::int[], $2::text[]) AS f(id, secret) WHERE s.id = f.id`,
    [ids, secrets],
  );
}

/** Takes the signing secrets of `tenant`'s subscriptions away: their deliveries go unsigned. */
export async function unsignSubscriptions(pool, tenant) {
  await pool.query(
    `UPDATE subscriptions SET signing_secret_encrypted = NULL, previous_signing_secret_encrypted = NULL,
       previous_signing_secret_until = NULL
     WHERE tenant = $1`,
    [tenant],
  );
}
