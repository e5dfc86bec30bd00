import { randomBytes } from 'node:crypto';
import type { DataSource } from 'typeorm';
import { SecretBox, UnreadableSecretError } from '../src/common/crypto/secret-box';
import { runMigrations } from '../src/database/migrate';
import { sealedIn } from '../src/subscriptions/sealed-columns';
import { migrations } from '../migrations';
import { createEmptyDatabase, undoMigrationsAfter } from './support/database';

const MIGRATION = 'BindSealedSecrets1764600000000';
/** The migration just before it, whichever that is once other features add theirs. */
const BEFORE = migrations[migrations.findIndex((m) => m.name === MIGRATION) - 1].name;

describe('migration BindSealedSecrets', () => {
  let ds: DataSource;
  let drop: () => Promise<void>;
  const key = randomBytes(32).toString('base64');
  const box = SecretBox.withKey(Buffer.from(key, 'base64'));
  const given = process.env.SECRETS_KEY;

  beforeAll(async () => {
    ({ ds, drop } = await createEmptyDatabase('bind'));
    process.env.SECRETS_KEY = key; // read by the migration as the service reads it
  });
  afterAll(async () => {
    if (given === undefined) delete process.env.SECRETS_KEY;
    else process.env.SECRETS_KEY = given;
    await drop?.();
  });

  const insertOld = async (name: string): Promise<number> => {
    const [row] = await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events, header_name, header_value_encrypted,
         signing_secret_encrypted, previous_signing_secret_encrypted, previous_signing_secret_until)
       VALUES ('t', $1, 'https://a.example', '{LICENCE_CREATED_SUCCESS}', 'X-Key', $2, $3, $4, now())
       RETURNING id`,
      [name, box.sealUnbound(`h-${name}`), box.sealUnbound(`s-${name}`), box.sealUnbound(`p-${name}`)],
    );
    return row.id;
  };
  const sealedOf = async (id: number) =>
    (
      await ds.query(
        `SELECT header_value_encrypted AS header, signing_secret_encrypted AS secret,
           previous_signing_secret_encrypted AS previous FROM subscriptions WHERE id = $1`,
        [id],
      )
    )[0] as { header: string; secret: string; previous: string };

  it('re-seals old unbound values bound to their row and column; moved, they no longer open; reverts', async () => {
    await runMigrations(ds);
    await undoMigrationsAfter(ds, BEFORE);
    const x = await insertOld('x');
    const y = await insertOld('y');
    await expect(runMigrations(ds)).resolves.toContain(MIGRATION);

    for (const [id, name] of [
      [x, 'x'],
      [y, 'y'],
    ] as const) {
      const sealed = await sealedOf(id);
      expect(sealed.header).toMatch(/^v2\./);
      expect(box.open(sealed.header, sealedIn.headerValue(id))).toBe(`h-${name}`);
      expect(box.open(sealed.secret, sealedIn.signingSecret(id))).toBe(`s-${name}`);
      expect(box.open(sealed.previous, sealedIn.previousSigningSecret(id))).toBe(`p-${name}`);
    }
    const fromX = await sealedOf(x);
    expect(() => box.open(fromX.header, sealedIn.headerValue(y))).toThrow(UnreadableSecretError);
    expect(() => box.open(fromX.secret, sealedIn.signingSecret(y))).toThrow(UnreadableSecretError);
    expect(() => box.open(fromX.previous, sealedIn.signingSecret(x))).toThrow(UnreadableSecretError);

    await undoMigrationsAfter(ds, BEFORE);
    const back = await sealedOf(x);
    expect(box.openUnbound(back.header)).toBe('h-x');
    expect(box.openUnbound(back.previous)).toBe('p-x');
  });

  it('stops, naming the row and column, at a value SECRETS_KEY does not open', async () => {
    await undoMigrationsAfter(ds, BEFORE);
    const other = SecretBox.withKey(randomBytes(32));
    const [row] = await ds.query(
      `INSERT INTO subscriptions (tenant, name, url, events, signing_secret_encrypted)
       VALUES ('t', 'z', 'https://a.example', '{LICENCE_CREATED_SUCCESS}', $1) RETURNING id`,
      [other.sealUnbound('s-z')],
    );
    await expect(runMigrations(ds)).rejects.toThrow(
      `subscriptions ${row.id} signing_secret_encrypted does not open with SECRETS_KEY`,
    );
    await expect(ds.query(`SELECT name FROM migrations WHERE name = $1`, [MIGRATION])).resolves.toEqual([]);
  });
});
