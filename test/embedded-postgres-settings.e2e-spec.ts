import pg from 'pg';
import { ADMIN_URL_ENV, SERVER_URL_ENV } from './support/database';

// The suite's own server is the embedded PostgreSQL unless DATABASE_URL named one (CI's second pass,
// where the server's settings are its operator's).
const embedded = !process.env[SERVER_URL_ENV];

(embedded ? describe : describe.skip)('Embedded PostgreSQL settings (the embedded pass)', () => {
  it('runs autovacuum every 10 s, for the outbox table that churns thousands of rows a second', async () => {
    const client = new pg.Client({ connectionString: process.env[ADMIN_URL_ENV] });
    await client.connect();
    try {
      const { rows } = await client.query<{ autovacuum_naptime: string }>('SHOW autovacuum_naptime');
      expect(rows[0].autovacuum_naptime).toBe('10s');
    } finally {
      await client.end();
    }
  });
});
