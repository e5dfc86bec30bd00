import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import request from 'supertest';
import {
  baseEnv,
  BuiltService,
  builtService,
  cliUser,
  clusterOf,
  EXIT_WITHIN_MS,
  expectJsonLines,
  generatedSecretWarnings,
  isAlive,
  meOfCliUser,
  oneLine,
  postgresOn,
  Running,
  runCli,
  spawnNode,
  startService,
  stop,
  storedSecrets,
  within,
} from './support/built-service';
import { freePort } from './support/service-process';

/**
 * The built service as a child process on the embedded PostgreSQL of a DATA_DIR of its own
 * (contract section 1: running it, restarts, signals, a crash, bad configuration; section 2: the
 * CLI beside it). These never use DATABASE_URL, so the CI's second pass, on the PostgreSQL server,
 * leaves them out (`.ci/run`, the specs named `embedded-*`).
 */
jest.setTimeout(240_000);

/** A DATA_DIR whose first start creates the administrator root@example.com (contract section 1). */
const withAdministrator = (dataDir: string) => ({
  DATA_DIR: dataDir,
  BOOTSTRAP_ADMIN_EMAIL: 'root@example.com',
  BOOTSTRAP_ADMIN_PASSWORD: 'root-password-1',
});

describe('running the built service on the embedded PostgreSQL (contract section 1)', () => {
  let built: BuiltService;
  const dirs: string[] = [];
  const started: Running[] = [];
  const newDataDir = async () => {
    const dir = await mkdtemp(join(tmpdir(), 'pis-life-'));
    dirs.push(dir);
    return dir;
  };
  const start = async (env: Record<string, string>) => {
    const service = await startService(built.main, env);
    started.push(service);
    return service;
  };

  beforeAll(async () => {
    built = await builtService();
  });

  afterAll(async () => {
    // Whatever a failed test left behind: its service, then its PostgreSQL.
    for (const service of started) if (service.child.exitCode === null) service.child.kill('SIGKILL');
    for (const dir of dirs) {
      for (const pid of postgresOn(dir)) process.kill(pid, 'SIGQUIT');
    }
    await new Promise((r) => setTimeout(r, 500));
    for (const dir of dirs) await rm(dir, { recursive: true, force: true });
  });

  describe('(a) embedded PostgreSQL: start, data and secrets across restarts, clean shutdown', () => {
    it('starts on a fresh DATA_DIR, keeps users and the JWT secret across a restart, and stops on SIGTERM and SIGINT', async () => {
      const dataDir = await newDataDir();
      const env = withAdministrator(dataDir);

      const first = await start(env);
      expect(postgresOn(dataDir)).toHaveLength(1);
      const http = () => request(first.url);
      const admin = await http()
        .post('/auth/login')
        .send({ email: 'root@example.com', password: 'root-password-1' });
      expect(admin.status).toBe(200);
      const adminToken = admin.body.token as string;
      const email = `life-${randomBytes(4).toString('hex')}@example.com`;
      await http()
        .post('/admin/users')
        .set('authorization', `Bearer ${adminToken}`)
        .send({
          email,
          password: 'life-password-1',
          role: 'ROLE_BRANCH',
          tenant: 'life',
          partnerId: 4,
          partnerName: 'Life',
        })
        .expect(201);
      const userToken = (
        await http().post('/auth/login').send({ email, password: 'life-password-1' }).expect(200)
      ).body.token as string;

      // The CLI joins the running embedded server: no second server, and the first one keeps going.
      const pg = postgresOn(dataDir);
      const cliEmail = `cli-${randomBytes(4).toString('hex')}@example.com`;
      const cli = await runCli(built.cli, cliUser(cliEmail), { DATA_DIR: dataDir });
      expect(cli).toMatchObject({ code: 0, stderr: '' });
      expect(oneLine(cli.stdout)).toMatch(
        new RegExp(`^created user \\d+ <${cliEmail}> role ROLE_PARTNER tenant cli$`),
      );
      expect(postgresOn(dataDir)).toEqual(pg);
      await http().get('/health/ready').expect(200);
      await http().post('/auth/login').send({ email: cliEmail, password: 'cli-password-1' }).expect(200);

      const firstExit = await stop(first, 'SIGTERM');
      expect(firstExit).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);
      expect(first.stderr()).toBe('');
      const records = expectJsonLines(first.stdout());
      expect(records.some((r) => r.msg === 'shut down cleanly')).toBe(true);
      // The generated secrets were announced, never printed.
      const jwtSecret = readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim();
      expect(first.stdout()).not.toContain(jwtSecret);
      expect(first.stdout()).not.toContain('root-password-1');
      expect(first.stdout()).not.toContain(adminToken);

      const second = await start(env);
      const http2 = () => request(second.url);
      // Same secret: tokens issued before the restart still work; the data is still there.
      const me = await http2().get('/auth/me').set('authorization', `Bearer ${userToken}`).expect(200);
      expect(me.body).toMatchObject({ user: email, role: '[[ROLE_BRANCH]]' });
      await http2().get('/auth/me').set('authorization', `Bearer ${adminToken}`).expect(200);
      await http2().post('/auth/login').send({ email, password: 'life-password-1' }).expect(200);
      await http2().post('/auth/login').send({ email: cliEmail, password: 'cli-password-1' }).expect(200);
      const list = await http2()
        .get('/admin/users?size=100')
        .set('authorization', `Bearer ${adminToken}`)
        .expect(200);
      // The bootstrap administrator was created once, not again at the second start.
      expect(list.body.content.filter((u: { email: string }) => u.email === 'root@example.com')).toHaveLength(
        1,
      );
      expect(second.stdout()).not.toMatch(/JWT_SECRET is not set: generated/);

      const secondExit = await stop(second, 'SIGINT');
      expect(secondExit).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);
      expect(second.stderr()).toBe('');
      expectJsonLines(second.stdout());
    });

    it("reaches its own server over an owner-only Unix socket in the cluster's folder, not TCP", async () => {
      const dataDir = await newDataDir();
      const service = await start({ DATA_DIR: dataDir });
      // postmaster.pid: pid, data folder, start time, port, socket folder, listen address, …
      const [, cluster, , port, socketDir, address] = readFileSync(
        join(dataDir, 'pg', 'postmaster.pid'),
        'utf8',
      ).split('\n');
      expect(socketDir).toBe(cluster);
      expect(address).toBe('127.0.0.1');
      const socket = statSync(join(socketDir, `.s.PGSQL.${port}`));
      expect(socket.isSocket()).toBe(true);
      expect(socket.mode & 0o777).toBe(0o700);

      // The service's sessions, seen from a session of this test's own over TCP.
      const client = new pg.Client({
        host: '127.0.0.1',
        port: Number(port),
        user: 'postgres',
        password: readFileSync(join(dataDir, 'pg-password'), 'utf8').trim(),
        database: 'partner_integration',
      });
      await client.connect();
      try {
        await request(service.url).get('/health/ready').expect(200);
        const { rows } = await client.query<{ client_addr: string | null }>(
          `SELECT client_addr FROM pg_stat_activity
            WHERE datname = current_database() AND backend_type = 'client backend' AND pid <> pg_backend_pid()`,
        );
        expect(rows.length).toBeGreaterThan(0);
        // A session over a Unix socket has no client address.
        expect(rows.map((r) => r.client_addr)).toEqual(rows.map(() => null));
        const own = await client.query<{ addr: string }>('SELECT host(inet_client_addr()) AS addr');
        expect(own.rows[0].addr).toBe('127.0.0.1');
      } finally {
        await client.end();
      }
      expect(await stop(service, 'SIGTERM')).toEqual({ code: 0, signal: null });
    });

    it('runs the CLI offline against the embedded DATA_DIR: starts PostgreSQL for the command and stops it', async () => {
      const dataDir = await newDataDir();
      const email = `offline-${randomBytes(4).toString('hex')}@example.com`;
      const cli = await runCli(built.cli, cliUser(email, ['--admin', '--hub', '--user-name', 'Off Line']), {
        DATA_DIR: dataDir,
      });
      // The CLI ran first on this DATA_DIR: it generated the secrets, and says so (contract section 1).
      expect(cli).toMatchObject({ code: 0, stderr: generatedSecretWarnings(dataDir) });
      for (const secret of storedSecrets(dataDir)) expect(cli.stderr + cli.stdout).not.toContain(secret);
      expect(oneLine(cli.stdout)).toMatch(/ \(administrator\)$/);
      expect(postgresOn(dataDir)).toEqual([]);

      const service = await start({ DATA_DIR: dataDir });
      expect(await meOfCliUser(() => request(service.url), email)).toMatchObject({
        user: email,
        isAdministrator: true,
        role: '[[ROLE_PARTNER]]',
        otherInformation: { hub: true, partnerName: 'Cli Partner', userName: 'Off Line', partnerId: 9 },
      });
      expect(await stop(service, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);
    });
  });

  describe('signals at awkward moments', () => {
    it('stops cleanly on a SIGTERM during start-up, while the embedded PostgreSQL is initialised', async () => {
      const dataDir = await newDataDir();
      const proc = spawnNode(built.main, [], baseEnv({ DATA_DIR: dataDir, PORT: String(await freePort()) }));
      const deadline = Date.now() + 30_000;
      while (!proc.stdout().includes('initialising embedded PostgreSQL')) {
        if (Date.now() > deadline || proc.child.exitCode !== null)
          throw new Error(`no initdb: ${proc.stdout()}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      proc.child.kill('SIGTERM');
      expect(await within(proc.exit, 60_000, 'exit after SIGTERM during start-up')).toEqual({
        code: 0,
        signal: null,
      });
      expect(postgresOn(dataDir)).toEqual([]);
      expect(proc.stderr()).toBe('');
      expect(
        expectJsonLines(proc.stdout()).some((r) => r.msg === 'SIGTERM received during start-up: stopping'),
      ).toBe(true);
    });

    it('ignores a repeated SIGTERM during shutdown and still exits 0 with PostgreSQL stopped', async () => {
      const dataDir = await newDataDir();
      const service = await start({ DATA_DIR: dataDir });
      service.child.kill('SIGTERM');
      service.child.kill('SIGTERM');
      service.child.kill('SIGINT');
      expect(await within(service.exit, EXIT_WITHIN_MS, 'exit after repeated signals')).toEqual({
        code: 0,
        signal: null,
      });
      expect(postgresOn(dataDir)).toEqual([]);
      expect(service.stdout()).toContain('received again: already shutting down');
    });
  });

  describe('(b) a crashed service', () => {
    it('leaves PostgreSQL running after SIGKILL; the next start adopts it, works, and stops it', async () => {
      const dataDir = await newDataDir();
      const env = withAdministrator(dataDir);
      const first = await start(env);
      const [pg] = postgresOn(dataDir);
      expect(pg).toBeGreaterThan(0);

      first.child.kill('SIGKILL');
      expect(await within(first.exit, EXIT_WITHIN_MS, 'exit after SIGKILL')).toEqual({
        code: null,
        signal: 'SIGKILL',
      });
      // Its own process group: the server outlives the node process that started it.
      expect(isAlive(pg)).toBe(true);
      expect(postgresOn(dataDir)).toEqual([pg]);

      const second = await start(env);
      expect(postgresOn(dataDir)).toEqual([pg]);
      expect(
        expectJsonLines(second.stdout()).some((r) =>
          String(r.msg).startsWith('adopting the embedded PostgreSQL'),
        ),
      ).toBe(true);
      const login = await request(second.url)
        .post('/auth/login')
        .send({ email: 'root@example.com', password: 'root-password-1' })
        .expect(200);
      await request(second.url)
        .get('/admin/users')
        .set('authorization', `Bearer ${login.body.token}`)
        .expect(200);

      expect(await stop(second, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(isAlive(pg)).toBe(false);
      expect(postgresOn(dataDir)).toEqual([]);
      expect(second.stderr()).toBe('');

      // And it starts cleanly once more after that.
      const third = await start(env);
      expect(await stop(third, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);
    });
  });

  describe('(c) a stale postmaster.pid', () => {
    it.each([
      ['a dead pid', () => 999_999],
      ['a live process that is not PostgreSQL', () => process.pid],
    ])('does not stop the next start (%s)', async (_name, pid) => {
      const dataDir = await newDataDir();
      const first = await start({ DATA_DIR: dataDir });
      expect(await stop(first, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);

      const pidFile = join(dataDir, 'pg', 'postmaster.pid');
      expect(existsSync(pidFile)).toBe(false);
      if (pid() === 999_999) expect(isAlive(999_999)).toBe(false);
      // The layout PostgreSQL writes: pid, data directory, start time, port, socket dir, host, key, status.
      writeFileSync(
        pidFile,
        `${pid()}\n${clusterOf(dataDir)}\n1700000000\n54321\n\n127.0.0.1\n  1234567     12345\nready   \n`,
      );

      const second = await start({ DATA_DIR: dataDir });
      expect(
        expectJsonLines(second.stdout()).some((r) => String(r.msg).includes('stale postmaster.pid')),
      ).toBe(true);
      await request(second.url).get('/health/ready').expect(200);
      expect(await stop(second, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);
    });
  });

  describe('(c) a postmaster.pid whose pid now belongs to another PostgreSQL', () => {
    it('starts its own server and leaves the other one alone', async () => {
      const otherDir = await newDataDir();
      const other = await start({ DATA_DIR: otherDir });
      const [otherPg] = postgresOn(otherDir);
      expect(otherPg).toBeGreaterThan(0);
      const otherPort = readFileSync(join(otherDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[3];

      const dataDir = await newDataDir();
      const first = await start({ DATA_DIR: dataDir });
      expect(await stop(first, 'SIGTERM')).toEqual({ code: 0, signal: null });
      // As if our server had died and its pid (and port) had gone to the other cluster's server.
      writeFileSync(
        join(dataDir, 'pg', 'postmaster.pid'),
        `${otherPg}\n${clusterOf(dataDir)}\n1700000000\n${otherPort}\n\n127.0.0.1\n  1234567     12345\nready   \n`,
      );

      const second = await start({ DATA_DIR: dataDir });
      const mine = postgresOn(dataDir);
      expect(mine).toHaveLength(1);
      expect(mine[0]).not.toBe(otherPg);
      expect(expectJsonLines(second.stdout()).some((r) => String(r.msg).startsWith('adopting'))).toBe(false);
      expect(await stop(second, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(postgresOn(dataDir)).toEqual([]);

      // The other server was neither used nor stopped.
      expect(isAlive(otherPg)).toBe(true);
      await request(other.url).get('/health/ready').expect(200);
      expect(await stop(other, 'SIGTERM')).toEqual({ code: 0, signal: null });
      expect(postgresOn(otherDir)).toEqual([]);
    });
  });

  describe('(d) bad configuration: exit non-zero with one line naming the variable', () => {
    it.each<[string, Record<string, string>, string]>([
      ['PORT=abc', { PORT: 'abc' }, 'Invalid environment variable PORT: must be an integer'],
      ['PORT=70000', { PORT: '70000' }, 'Invalid environment variable PORT: must not be greater than 65535'],
      [
        'WEBHOOK_TIMEOUT_MS=-1',
        { WEBHOOK_TIMEOUT_MS: '-1' },
        'Invalid environment variable WEBHOOK_TIMEOUT_MS: must not be less than 100',
      ],
      [
        'NODE_ENV=production without JWT_SECRET',
        { NODE_ENV: 'production', SECRETS_KEY: randomBytes(32).toString('base64') },
        'Invalid environment variable JWT_SECRET: is required when NODE_ENV=production',
      ],
      [
        'NODE_ENV=production without SECRETS_KEY',
        { NODE_ENV: 'production', JWT_SECRET: randomBytes(32).toString('hex') },
        'Invalid environment variable SECRETS_KEY: is required when NODE_ENV=production',
      ],
      [
        'DATABASE_URL=mysql://x',
        { DATABASE_URL: 'mysql://x' },
        'Invalid environment variable DATABASE_URL: must be a postgres:// or postgresql:// URL',
      ],
      [
        'DATABASE_URL with port 99999',
        { DATABASE_URL: 'postgres://u@h:99999/db' },
        'Invalid environment variable DATABASE_URL: port must be a number from 1 to 65535',
      ],
      [
        'WEBHOOK_PROXY_URL with port 99999',
        { WEBHOOK_PROXY_URL: 'http://h:99999' },
        'Invalid environment variable WEBHOOK_PROXY_URL: port must be a number from 1 to 65535',
      ],
      [
        'REDIS_URL without a host',
        { REDIS_URL: 'redis://:password@/0' },
        'Invalid environment variable REDIS_URL: must name a host',
      ],
      [
        'TRUST_PROXY=yes',
        { TRUST_PROXY: 'yes' },
        'Invalid environment variable TRUST_PROXY: must be true or false',
      ],
      [
        'LOG_LEVEL=loud',
        { LOG_LEVEL: 'loud' },
        'Invalid environment variable LOG_LEVEL: must be one of the following values',
      ],
      [
        'REDIS_URL=localhost',
        { REDIS_URL: 'localhost' },
        'Invalid environment variable REDIS_URL: must be a redis:// or rediss:// URL',
      ],
      [
        'BOOTSTRAP_ADMIN_EMAIL alone',
        { BOOTSTRAP_ADMIN_EMAIL: 'root@example.com' },
        'Invalid environment variable BOOTSTRAP_ADMIN_PASSWORD: is required when the other BOOTSTRAP_ADMIN_ variable is set',
      ],
    ])('%s', async (_name, env, line) => {
      const dataDir = await newDataDir();
      const proc = spawnNode(
        built.main,
        [],
        baseEnv({ DATA_DIR: dataDir, PORT: String(await freePort()), ...env }),
      );
      const exit = await within(proc.exit, 20_000, 'exit on bad configuration');
      expect(exit.code).not.toBe(0);
      expect(exit.code).not.toBeNull();
      expect(oneLine(proc.stderr())).toContain(line);
      expect(proc.stdout()).toBe('');
      // Stopped before anything started.
      expect(existsSync(join(dataDir, 'pg'))).toBe(false);
      expect(postgresOn(dataDir)).toEqual([]);
    });

    it('stops the embedded PostgreSQL it started when the port is taken, and exits non-zero', async () => {
      const dataDir = await newDataDir();
      const blocker = createServer();
      const port = await new Promise<number>((r) =>
        blocker.listen(0, '127.0.0.1', () => r((blocker.address() as { port: number }).port)),
      );
      try {
        const proc = spawnNode(
          built.main,
          [],
          baseEnv({ DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' }),
        );
        const exit = await within(proc.exit, 90_000, 'exit when the port is taken');
        expect(exit.code).toBe(1);
        expect(proc.stderr()).toBe(`Cannot listen on 127.0.0.1:${port} (PORT): the port is already in use\n`);
        expect(expectJsonLines(proc.stdout()).some((r) => r.msg === 'start-up failed')).toBe(false);
        expect(postgresOn(dataDir)).toEqual([]);
      } finally {
        blocker.close();
      }
    });

    it('names HOST in one line when it does not resolve, stops the embedded PostgreSQL and exits non-zero', async () => {
      const dataDir = await newDataDir();
      const env = baseEnv({ DATA_DIR: dataDir, PORT: String(await freePort()), HOST: 'host.invalid' });
      const proc = spawnNode(built.main, [], env);
      const exit = await within(proc.exit, 90_000, 'exit when HOST does not resolve');
      expect(exit.code).toBe(1);
      expect(proc.stderr()).toBe(
        'Invalid environment variable HOST: host.invalid does not resolve to an address\n',
      );
      expect(postgresOn(dataDir)).toEqual([]);
    });

    it('surfaces an embedded PostgreSQL that cannot start, in one line, and exits non-zero', async () => {
      const dataDir = await newDataDir();
      const first = await start({ DATA_DIR: dataDir });
      expect(await stop(first, 'SIGTERM')).toEqual({ code: 0, signal: null });
      // A cluster from a PostgreSQL version these binaries cannot read.
      writeFileSync(join(dataDir, 'pg', 'PG_VERSION'), '9\n');
      const proc = spawnNode(built.main, [], baseEnv({ DATA_DIR: dataDir, PORT: String(await freePort()) }));
      const exit = await within(proc.exit, 90_000, 'exit when PostgreSQL cannot start');
      expect(exit.code).toBe(1);
      expect(oneLine(proc.stderr())).toMatch(
        /^start-up failed: embedded PostgreSQL exited during start-up: .*(incompatible|version)/i,
      );
      expect(postgresOn(dataDir)).toEqual([]);
    });
  });
});
