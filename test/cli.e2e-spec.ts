import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  baseEnv,
  BuiltService,
  builtService,
  cliUser,
  generatedSecretWarnings,
  meOfCliUser,
  oneLine,
  runCli,
  spawnNode,
  storedSecrets,
  TYPEORM_CLI,
  within,
} from './support/built-service';
import { createTestDatabase, dropTestDatabase } from './support/database';
import { freePort } from './support/service-process';
import { startTestApp } from './support/test-app';

/** The built command-line tools against the run's database (contract sections 1, 2). */
jest.setTimeout(240_000);

describe('(e) the command-line tools: npm run cli -- users:create, npm run migration:run (contract sections 1, 2)', () => {
  let built: BuiltService;
  let database: { url: string; name: string };
  // Secrets given: the generated-secret warnings on stderr are the subject of their own tests.
  const secrets = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
  };
  const env = () => ({ DATABASE_URL: database.url, DATA_DIR: join(tmpdir(), 'pis-cli-unused'), ...secrets });

  beforeAll(async () => {
    built = await builtService();
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await dropTestDatabase(database.name);
    await rm(join(tmpdir(), 'pis-cli-unused'), { recursive: true, force: true });
  });

  it('creates a user (exit 0, one line) who can then log in over HTTP', async () => {
    const email = `cli-${randomBytes(4).toString('hex')}@example.com`;
    const result = await runCli(built.cli, cliUser(email), env());
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(oneLine(result.stdout)).toMatch(
      new RegExp(`^created user \\d+ <${email}> role ROLE_PARTNER tenant cli$`),
    );
    expect(result.stdout).not.toContain('cli-password-1');

    const app = await startTestApp({}, { databaseUrl: database.url });
    try {
      expect(await meOfCliUser(app.http, email)).toMatchObject({
        user: email,
        isAdministrator: false,
        role: '[[ROLE_PARTNER]]',
        otherInformation: { hub: false, partnerName: 'Cli Partner', userName: email, partnerId: 9 },
      });
    } finally {
      await app.close();
    }
  });

  it('refuses a duplicate e-mail, in any case, with one clear line and a non-zero exit', async () => {
    const email = `dup-${randomBytes(4).toString('hex')}@example.com`;
    expect((await runCli(built.cli, cliUser(email), env())).code).toBe(0);
    for (const again of [email, email.toUpperCase()]) {
      const result = await runCli(built.cli, cliUser(again), env());
      expect(result.code).not.toBe(0);
      expect(oneLine(result.stderr)).toBe('a user with this e-mail already exists');
      expect(result.stdout).toBe('');
    }
  });

  it.each<[string, string[], RegExp]>([
    [
      'missing --email',
      cliUser('x@example.com').filter((a, i, all) => a !== '--email' && all[i - 1] !== '--email'),
      /^invalid --email: email is required$/,
    ],
    ['a bad --email', cliUser('not-an-email'), /^invalid --email: /],
    [
      'a short --password',
      [...cliUser('p@example.com').slice(0, 3), '--password', 'short', ...cliUser('p@example.com').slice(5)],
      /^invalid --password: /,
    ],
    [
      'a bad --role',
      cliUser('r@example.com').map((a) => (a === 'ROLE_PARTNER' ? 'ROLE_ADMIN' : a)),
      /^invalid --role: role must be one of ROLE_PARTNER, ROLE_CLIENT, ROLE_BRANCH$/,
    ],
    [
      'a non-numeric --partner-id',
      cliUser('n@example.com').map((a) => (a === '9' ? 'nine' : a)),
      /^invalid --partner-id: /,
    ],
    [
      'an unknown option',
      [...cliUser('u@example.com'), '--superuser'],
      /^Unknown option '--superuser'.*; usage: npm run cli -- users:create /,
    ],
    [
      'an unknown command',
      ['users:delete', '--email', 'x@example.com'],
      /^usage: npm run cli -- users:create /,
    ],
    ['no command', [], /^usage: npm run cli -- users:create /],
  ])('fails on %s with one clear line and a non-zero exit', async (_name, args, line) => {
    const result = await runCli(built.cli, args, env());
    expect(result.code).not.toBe(0);
    expect(result.code).not.toBeNull();
    expect(oneLine(result.stderr)).toMatch(line);
    expect(result.stdout).toBe('');
  });

  it('fails on a bad environment with the variable named, in one line', async () => {
    const result = await runCli(built.cli, cliUser('e@example.com'), { DATABASE_URL: 'mysql://x' });
    expect(result.code).not.toBe(0);
    expect(oneLine(result.stderr)).toBe(
      'Invalid environment variable DATABASE_URL: must be a postgres:// or postgresql:// URL',
    );
  });

  it('fails on an unreachable database in one line, without hanging', async () => {
    const port = await freePort();
    const result = await runCli(built.cli, cliUser('down@example.com'), {
      DATABASE_URL: `postgres://postgres@127.0.0.1:${port}/nothing`,
      DATA_DIR: join(tmpdir(), 'pis-cli-unused'),
      ...secrets,
    });
    expect(result.code).not.toBe(0);
    expect(oneLine(result.stderr)).toMatch(/^failed: .*ECONNREFUSED/);
  });

  it('npm run migration:run on a fresh DATA_DIR says on stderr that it generated the secrets, once', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'pis-migrate-'));
    try {
      // What `npm run migration:run` runs after its build.
      const migrate = async () => {
        const proc = spawnNode(
          TYPEORM_CLI,
          ['migration:run', '-d', built.ormconfig],
          baseEnv({ DATABASE_URL: database.url, DATA_DIR: dataDir }),
        );
        const exit = await within(proc.exit, 90_000, 'migration:run');
        return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
      };
      const first = await migrate();
      expect(first).toMatchObject({ code: 0, stderr: generatedSecretWarnings(dataDir) });
      for (const secret of storedSecrets(dataDir)) expect(first.stderr + first.stdout).not.toContain(secret);
      // Generated once: the next run finds them and says nothing.
      expect(await migrate()).toMatchObject({ code: 0, stderr: '' });
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
