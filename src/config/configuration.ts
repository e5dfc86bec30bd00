import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, linkSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { resolve, join } from 'node:path';
import { ConfigError, TrustProxy, validateEnvironment } from './environment';
import { makeOwnerOnlyDir } from './owner-only-files';

export interface AppConfig {
  app: {
    env: 'development' | 'production' | 'test';
    port: number;
    host: string;
    dataDir: string;
    logLevel: string;
    /** Which peers are proxies: false, true, a hop count, or the trusted proxies' addresses and CIDRs. */
    trustProxy: TrustProxy;
    version: string;
    shutdownGraceMs: number;
  };
  /** Contract section 8: slow clients and the memory held by request bodies being read. */
  http: { requestTimeoutMs: number; bodyBufferBudgetBytes: number };
  database: { url: string | undefined; migrateOnStart: boolean; poolSize: number };
  redis: { url: string | undefined };
  auth: {
    jwtSecret: string;
    tokenTtlMs: number;
    userCacheTtlMs: number;
    bootstrapAdmin: { email: string; password: string; tenant: string } | undefined;
  };
  secrets: { key: Buffer };
  rateLimit: {
    loginPerMinute: number;
    apiPerMinute: number;
    /** Per subscription (contract section 8, Partner-tool budgets). */
    recoverPerMinute: number;
    testEventsPerMinute: number;
    resendPerMinute: number;
  };
  /** Contract section 8, Subscriptions per tenant. */
  subscriptions: { perTenantMax: number };
  webhook: {
    timeoutMs: number;
    concurrency: number;
    /** Threads that make the POSTs (each its own event loop, V8 heap and keep-alive connections). */
    deliveryThreads: number;
    /** Each delivery thread's semi-spaces (MB); unset: the process's --max-semi-space-size. */
    deliveryThreadSemiSpaceMb: number | undefined;
    allowPrivateNetworks: boolean;
    proxyUrl: string | undefined;
    /** How long the previous signing secret keeps signing after a rotation (contract section 9). */
    secretOverlapMs: number;
  };
  /** Events and delivery records older than this are deleted (contract section 8, Retention). */
  retention: { days: number };
  /** The scraper's bearer token for GET /metrics, besides administrators' tokens. */
  metrics: { token: string | undefined };
}

export interface LoadedConfig {
  config: AppConfig;
  /** Said once the logger exists (e.g. a generated secret). */
  warnings: string[];
}

/** Token lifetime: spec, Login response and Limits (14400000 ms, four hours). */
export const TOKEN_TTL_MS = 14_400_000;

/** From package.json: two folders up from src/config, three from dist/src/config. */
const packageVersion = (): string => {
  const file = [join(__dirname, '../../package.json'), join(__dirname, '../../../package.json')].find(
    existsSync,
  );
  return file ? String(JSON.parse(readFileSync(file, 'utf8')).version) : '0.0.0';
};

/**
 * A secret given in the environment wins; in production it is required; elsewhere it is generated
 * once and kept in DATA_DIR (mode 0600) so tokens and encrypted values survive a restart
 * (contract section 1).
 */
function persistentSecret(
  name: string,
  given: string | undefined,
  env: string,
  dataDir: string,
  generate: () => string,
  usable: (value: string) => boolean,
  warnings: string[],
): string {
  if (given) return given;
  if (env === 'production') throw new ConfigError(name, 'is required when NODE_ENV=production');
  const file = join(dataDir, name.toLowerCase().replace(/_/g, '-'));
  if (!existsSync(file)) storeNewSecret(name, file, dataDir, generate, warnings);
  const stored = readFileSync(file, 'utf8').trim();
  if (!usable(stored)) {
    throw new ConfigError(
      name,
      `is not set and the value stored in ${file} is unusable (set ${name}, or delete the file)`,
    );
  }
  return stored;
}

function storeNewSecret(
  name: string,
  file: string,
  dataDir: string,
  generate: () => string,
  warnings: string[],
): void {
  try {
    makeOwnerOnlyDir(dataDir);
    // Written aside, then linked into place (which fails if the file exists): two processes
    // starting together on a fresh DATA_DIR (the service and the CLI) share one secret.
    const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    writeFileSync(aside, generate() + '\n', { mode: 0o600 });
    chmodSync(aside, 0o600);
    try {
      linkSync(aside, file);
      warnings.push(`${name} is not set: generated one and stored it in ${file}; set ${name} in production`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      rmSync(aside, { force: true });
    }
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error);
    throw new ConfigError(
      'DATA_DIR',
      `cannot store a generated ${name} in ${dataDir} (${code}); set ${name} or fix DATA_DIR`,
    );
  }
}

const isSecretsKey = (value: string) => Buffer.from(value, 'base64').length === 32;

function secretsKeyOf(
  vars: ReturnType<typeof validateEnvironment>,
  env: string,
  dataDir: string,
  warnings: string[],
): Buffer {
  const secretsKey = persistentSecret(
    'SECRETS_KEY',
    vars.SECRETS_KEY,
    env,
    dataDir,
    () => randomBytes(32).toString('base64'),
    isSecretsKey,
    warnings,
  );
  const key = Buffer.from(secretsKey, 'base64');
  if (key.length !== 32) throw new ConfigError('SECRETS_KEY', 'must be 32 bytes, base64-encoded');
  return key;
}

/**
 * SECRETS_KEY as the service resolves it from the same environment (given, or kept in DATA_DIR),
 * for a migration that re-seals values: TypeORM builds migrations without the app's configuration.
 */
export function secretsKeyFrom(environment: NodeJS.ProcessEnv = process.env): Buffer {
  const vars = validateEnvironment(environment);
  const warnings: string[] = [];
  const key = secretsKeyOf(
    vars,
    vars.NODE_ENV ?? 'development',
    resolve(vars.DATA_DIR ?? './.data'),
    warnings,
  );
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  return key;
}

/** The auth namespace: JWT_SECRET (given, or kept in DATA_DIR) and the bootstrap administrator. */
function authConfig(
  vars: ReturnType<typeof validateEnvironment>,
  env: string,
  dataDir: string,
  warnings: string[],
): AppConfig['auth'] {
  if (!!vars.BOOTSTRAP_ADMIN_EMAIL !== !!vars.BOOTSTRAP_ADMIN_PASSWORD) {
    const missing = vars.BOOTSTRAP_ADMIN_EMAIL ? 'BOOTSTRAP_ADMIN_PASSWORD' : 'BOOTSTRAP_ADMIN_EMAIL';
    throw new ConfigError(missing, 'is required when the other BOOTSTRAP_ADMIN_ variable is set');
  }
  const jwtSecret = persistentSecret(
    'JWT_SECRET',
    vars.JWT_SECRET,
    env,
    dataDir,
    () => randomBytes(48).toString('base64url'),
    (value) => value.length >= 32,
    warnings,
  );
  return {
    jwtSecret,
    tokenTtlMs: TOKEN_TTL_MS,
    userCacheTtlMs: vars.USER_CACHE_TTL_MS ?? 2000,
    bootstrapAdmin: vars.BOOTSTRAP_ADMIN_EMAIL
      ? {
          email: vars.BOOTSTRAP_ADMIN_EMAIL,
          password: vars.BOOTSTRAP_ADMIN_PASSWORD!,
          tenant: vars.BOOTSTRAP_ADMIN_TENANT ?? 'provider',
        }
      : undefined,
  };
}

export function loadConfig(environment: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const vars = validateEnvironment(environment);
  const warnings: string[] = [];
  const env = (vars.NODE_ENV ?? 'development') as AppConfig['app']['env'];
  const dataDir = resolve(vars.DATA_DIR ?? './.data');
  // JWT_SECRET first: a missing one is announced before SECRETS_KEY's.
  const auth = authConfig(vars, env, dataDir, warnings);
  const key = secretsKeyOf(vars, env, dataDir, warnings);

  return {
    warnings,
    config: {
      app: {
        env,
        port: vars.PORT ?? 3000,
        host: vars.HOST ?? '0.0.0.0',
        dataDir,
        logLevel: vars.LOG_LEVEL ?? 'info',
        trustProxy: vars.TRUST_PROXY ?? false,
        version: packageVersion(),
        shutdownGraceMs: vars.SHUTDOWN_GRACE_MS ?? 10_000,
      },
      http: {
        requestTimeoutMs: vars.REQUEST_TIMEOUT_MS ?? 30_000,
        bodyBufferBudgetBytes: (vars.BODY_BUFFER_BUDGET_MB ?? 64) * 1024 * 1024,
      },
      database: {
        url: vars.DATABASE_URL,
        migrateOnStart: vars.DB_MIGRATE_ON_START ?? true,
        poolSize: vars.DB_POOL_SIZE ?? 10,
      },
      redis: { url: vars.REDIS_URL },
      auth,
      secrets: { key },
      rateLimit: {
        loginPerMinute: vars.RATE_LIMIT_LOGIN_PER_MINUTE ?? 10,
        apiPerMinute: vars.RATE_LIMIT_API_PER_MINUTE ?? 100,
        recoverPerMinute: vars.RATE_LIMIT_RECOVER_PER_MINUTE ?? 1,
        testEventsPerMinute: vars.RATE_LIMIT_TEST_EVENTS_PER_MINUTE ?? 10,
        resendPerMinute: vars.RATE_LIMIT_RESEND_PER_MINUTE ?? 60,
      },
      subscriptions: { perTenantMax: vars.SUBSCRIPTIONS_PER_TENANT_MAX ?? 1000 },
      webhook: {
        timeoutMs: vars.WEBHOOK_TIMEOUT_MS ?? 30_000,
        concurrency: vars.WEBHOOK_CONCURRENCY ?? 64,
        deliveryThreads: vars.WEBHOOK_DELIVERY_THREADS ?? 1,
        deliveryThreadSemiSpaceMb: vars.WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB,
        allowPrivateNetworks: vars.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? false,
        proxyUrl: vars.WEBHOOK_PROXY_URL,
        secretOverlapMs: vars.WEBHOOK_SECRET_OVERLAP_MS ?? 86_400_000,
      },
      retention: { days: vars.RETENTION_DAYS ?? 30 },
      metrics: { token: vars.METRICS_TOKEN },
    },
  };
}

/**
 * loadConfig for the command-line tools (users:create, TypeORM's CLI), which have no JSON logger:
 * each warning as one line on stderr, so a secret generated by a tool that runs before the service
 * is announced too (contract section 1: "with a warning in the log").
 */
export function loadConfigForTool(environment: NodeJS.ProcessEnv = process.env): AppConfig {
  const { config, warnings } = loadConfig(environment);
  for (const warning of warnings) process.stderr.write(`warning: ${warning}\n`);
  return config;
}
