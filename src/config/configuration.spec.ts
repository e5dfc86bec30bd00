import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadConfig, TOKEN_TTL_MS } from './configuration';
import { ConfigError } from './environment';

describe('loadConfig (contract section 1)', () => {
  let dataDir: string;

  beforeEach(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'pis-config-'));
  });
  afterEach(() => {
    rmSync(dataDir, { recursive: true, force: true });
  });

  const given = () => ({
    DATA_DIR: dataDir,
    JWT_SECRET: randomBytes(32).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
  });

  it('applies the documented defaults', () => {
    const env = given();
    const { config, warnings } = loadConfig(env);
    expect(warnings).toEqual([]);
    expect(config.app).toMatchObject({
      env: 'development',
      port: 3000,
      host: '0.0.0.0',
      dataDir,
      logLevel: 'info',
      trustProxy: false,
      shutdownGraceMs: 10_000,
    });
    expect(config.app.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(config.http).toEqual({ requestTimeoutMs: 30_000, bodyBufferBudgetBytes: 64 * 1024 * 1024 });
    expect(config.database).toEqual({ url: undefined, migrateOnStart: true, poolSize: 10 });
    expect(config.redis).toEqual({ url: undefined });
    expect(config.auth).toMatchObject({
      jwtSecret: env.JWT_SECRET,
      tokenTtlMs: 14_400_000,
      userCacheTtlMs: 2000,
      bootstrapAdmin: undefined,
    });
    expect(TOKEN_TTL_MS).toBe(14_400_000);
    expect(config.secrets.key.equals(Buffer.from(env.SECRETS_KEY, 'base64'))).toBe(true);
    expect(config.rateLimit).toEqual({
      loginPerMinute: 10,
      apiPerMinute: 100,
      recoverPerMinute: 1,
      testEventsPerMinute: 10,
      resendPerMinute: 60,
    });
    expect(config.subscriptions).toEqual({ perTenantMax: 1000 });
    expect(config.webhook).toEqual({
      timeoutMs: 30_000,
      concurrency: 64,
      deliveryThreads: 1,
      deliveryThreadSemiSpaceMb: undefined,
      allowPrivateNetworks: false,
      proxyUrl: undefined,
      secretOverlapMs: 86_400_000,
    });
    // Nothing generated, nothing written.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('defaults DATA_DIR to ./.data', () => {
    const { config } = loadConfig({ JWT_SECRET: given().JWT_SECRET, SECRETS_KEY: given().SECRETS_KEY });
    expect(config.app.dataDir).toBe(join(process.cwd(), '.data'));
  });

  it('reads every variable', () => {
    const { config } = loadConfig({
      ...given(),
      NODE_ENV: 'production',
      PORT: '8081',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'warn',
      TRUST_PROXY: 'true',
      SHUTDOWN_GRACE_MS: '500',
      REQUEST_TIMEOUT_MS: '2000',
      BODY_BUFFER_BUDGET_MB: '8',
      DATABASE_URL: 'postgres://u@db/app',
      DB_MIGRATE_ON_START: 'false',
      DB_POOL_SIZE: '3',
      REDIS_URL: 'redis://cache:6379',
      USER_CACHE_TTL_MS: '0',
      BOOTSTRAP_ADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'root-password',
      RATE_LIMIT_LOGIN_PER_MINUTE: '5',
      RATE_LIMIT_API_PER_MINUTE: '50',
      RATE_LIMIT_RECOVER_PER_MINUTE: '2',
      RATE_LIMIT_TEST_EVENTS_PER_MINUTE: '20',
      RATE_LIMIT_RESEND_PER_MINUTE: '120',
      SUBSCRIPTIONS_PER_TENANT_MAX: '5',
      WEBHOOK_TIMEOUT_MS: '1000',
      WEBHOOK_CONCURRENCY: '8',
      WEBHOOK_DELIVERY_THREADS: '3',
      WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB: '16',
      WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
      WEBHOOK_PROXY_URL: 'http://proxy:3128',
      WEBHOOK_SECRET_OVERLAP_MS: '0',
      RETENTION_DAYS: '7',
      METRICS_TOKEN: 'scrape-token-0123456789',
    });
    expect(config.app).toMatchObject({
      env: 'production',
      port: 8081,
      host: '127.0.0.1',
      logLevel: 'warn',
      trustProxy: true,
      shutdownGraceMs: 500,
    });
    expect(config.http).toEqual({ requestTimeoutMs: 2000, bodyBufferBudgetBytes: 8 * 1024 * 1024 });
    expect(config.database).toEqual({ url: 'postgres://u@db/app', migrateOnStart: false, poolSize: 3 });
    expect(config.redis.url).toBe('redis://cache:6379');
    expect(config.auth.userCacheTtlMs).toBe(0);
    expect(config.auth.bootstrapAdmin).toEqual({
      email: 'root@example.com',
      password: 'root-password',
      tenant: 'provider',
    });
    expect(config.rateLimit).toEqual({
      loginPerMinute: 5,
      apiPerMinute: 50,
      recoverPerMinute: 2,
      testEventsPerMinute: 20,
      resendPerMinute: 120,
    });
    expect(config.subscriptions).toEqual({ perTenantMax: 5 });
    expect(config.webhook).toEqual({
      timeoutMs: 1000,
      concurrency: 8,
      deliveryThreads: 3,
      deliveryThreadSemiSpaceMb: 16,
      allowPrivateNetworks: true,
      proxyUrl: 'http://proxy:3128',
      secretOverlapMs: 0,
    });
    expect(config.retention).toEqual({ days: 7 });
    expect(config.metrics).toEqual({ token: 'scrape-token-0123456789' });
  });

  it('keeps records 30 days and has no scraper token by default', () => {
    const { config } = loadConfig(given());
    expect(config.retention).toEqual({ days: 30 });
    expect(config.metrics).toEqual({ token: undefined });
  });

  it('takes BOOTSTRAP_ADMIN_TENANT when given', () => {
    const { config } = loadConfig({
      ...given(),
      BOOTSTRAP_ADMIN_EMAIL: 'root@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'root-password',
      BOOTSTRAP_ADMIN_TENANT: 'hq',
    });
    expect(config.auth.bootstrapAdmin?.tenant).toBe('hq');
  });

  it.each([
    [{ BOOTSTRAP_ADMIN_EMAIL: 'root@example.com' }, 'BOOTSTRAP_ADMIN_PASSWORD'],
    [{ BOOTSTRAP_ADMIN_PASSWORD: 'root-password' }, 'BOOTSTRAP_ADMIN_EMAIL'],
  ])('needs both bootstrap variables: %j names %s', (env, missing) => {
    expect(() => loadConfig({ ...given(), ...env })).toThrow(
      new ConfigError(missing, 'is required when the other BOOTSTRAP_ADMIN_ variable is set'),
    );
  });

  it.each(['JWT_SECRET', 'SECRETS_KEY'])('requires %s when NODE_ENV=production', (name) => {
    const env: Record<string, string> = { ...given(), NODE_ENV: 'production' };
    delete env[name];
    expect(() => loadConfig(env)).toThrow(
      `Invalid environment variable ${name}: is required when NODE_ENV=production`,
    );
    // Nor is one generated behind the operator's back.
    expect(readdirSync(dataDir)).toEqual([]);
  });

  it('refuses a SECRETS_KEY that is base64 but not 32 bytes', () => {
    expect(() => loadConfig({ ...given(), SECRETS_KEY: randomBytes(16).toString('base64') })).toThrow(
      'Invalid environment variable SECRETS_KEY: must be 32 bytes, base64-encoded',
    );
  });

  describe('generated secrets (no JWT_SECRET / SECRETS_KEY outside production)', () => {
    it('generates both once, stores them with mode 0600, and warns', () => {
      const first = loadConfig({ DATA_DIR: dataDir });
      expect(first.warnings).toHaveLength(2);
      expect(first.warnings[0]).toMatch(
        /^JWT_SECRET is not set: generated one and stored it in .*jwt-secret/,
      );
      expect(first.warnings[1]).toMatch(
        /^SECRETS_KEY is not set: generated one and stored it in .*secrets-key/,
      );
      expect(readdirSync(dataDir).sort()).toEqual(['jwt-secret', 'secrets-key']);
      for (const file of ['jwt-secret', 'secrets-key']) {
        expect(statSync(join(dataDir, file)).mode & 0o777).toBe(0o600);
      }
      expect(readFileSync(join(dataDir, 'jwt-secret'), 'utf8').trim()).toBe(first.config.auth.jwtSecret);
      expect(first.config.auth.jwtSecret.length).toBeGreaterThanOrEqual(32);
      expect(first.config.secrets.key).toHaveLength(32);
      // Warnings never carry the secret itself.
      expect(first.warnings.join(' ')).not.toContain(first.config.auth.jwtSecret);
    });

    it('reuses the stored secrets on the next start, without warning', () => {
      const first = loadConfig({ DATA_DIR: dataDir });
      const second = loadConfig({ DATA_DIR: dataDir, NODE_ENV: 'test' });
      expect(second.warnings).toEqual([]);
      expect(second.config.auth.jwtSecret).toBe(first.config.auth.jwtSecret);
      expect(second.config.secrets.key.equals(first.config.secrets.key)).toBe(true);
    });

    it('generates different secrets for different data folders', () => {
      const other = mkdtempSync(join(tmpdir(), 'pis-config-'));
      try {
        const a = loadConfig({ DATA_DIR: dataDir });
        const b = loadConfig({ DATA_DIR: other });
        expect(a.config.auth.jwtSecret).not.toBe(b.config.auth.jwtSecret);
        expect(a.config.secrets.key.equals(b.config.secrets.key)).toBe(false);
      } finally {
        rmSync(other, { recursive: true, force: true });
      }
    });

    it('prefers a secret given in the environment over the stored one', () => {
      loadConfig({ DATA_DIR: dataDir });
      const env = given();
      const { config } = loadConfig(env);
      expect(config.auth.jwtSecret).toBe(env.JWT_SECRET);
    });

    it('creates DATA_DIR when it does not exist', () => {
      const nested = join(dataDir, 'a', 'b');
      const { config } = loadConfig({ DATA_DIR: nested });
      expect(readFileSync(join(nested, 'jwt-secret'), 'utf8').trim()).toBe(config.auth.jwtSecret);
    });

    it('leaves no temporary files behind', () => {
      loadConfig({ DATA_DIR: dataDir });
      loadConfig({ DATA_DIR: dataDir });
      expect(readdirSync(dataDir).sort()).toEqual(['jwt-secret', 'secrets-key']);
    });

    it.each([
      ['jwt-secret', 'JWT_SECRET', ''],
      ['jwt-secret', 'JWT_SECRET', 'short'],
      ['secrets-key', 'SECRETS_KEY', 'c2hvcnQ='],
    ])('refuses an unusable stored %s (%j), naming %s, rather than use it', (file, name, content) => {
      writeFileSync(join(dataDir, file), content, { mode: 0o600 });
      expect(() => loadConfig({ DATA_DIR: dataDir })).toThrow(
        `Invalid environment variable ${name}: is not set and the value stored in`,
      );
    });

    it('names DATA_DIR when the secret cannot be stored there', () => {
      if (process.getuid?.() === 0) {
        // root writes anywhere: a regular file where the folder should be does the job.
        writeFileSync(join(dataDir, 'file'), 'x');
        expect(() => loadConfig({ DATA_DIR: join(dataDir, 'file', 'sub') })).toThrow(
          /^Invalid environment variable DATA_DIR: cannot store a generated JWT_SECRET in .* \(ENOTDIR\)/,
        );
        return;
      }
      chmodSync(dataDir, 0o500);
      expect(() => loadConfig({ DATA_DIR: dataDir })).toThrow(
        /^Invalid environment variable DATA_DIR: cannot store a generated JWT_SECRET/,
      );
    });
  });
});
