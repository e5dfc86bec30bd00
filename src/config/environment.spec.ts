import { ConfigError, validateEnvironment } from './environment';

/** The one line main.ts prints for a bad variable. */
function problem(env: Record<string, string>): string {
  try {
    validateEnvironment(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as Error).message;
  }
  throw new Error(`accepted ${JSON.stringify(env)}`);
}

describe('validateEnvironment (contract section 1: bad configuration)', () => {
  it('accepts an empty environment: every variable has a default or is optional', () => {
    expect({ ...validateEnvironment({}) }).toEqual({});
  });

  it('reads only its own variables and treats empty strings as unset', () => {
    const vars = validateEnvironment({ PATH: '/bin', PORT: '', HOME: '/root', TRUST_PROXY: '' });
    expect({ ...vars }).toEqual({});
  });

  it.each<[string, string, string]>([
    ['PORT', 'abc', 'must be an integer'],
    ['PORT', '1.5', 'must be an integer'],
    ['PORT', '0x10', 'must be an integer'],
    ['PORT', '8080abc', 'must be an integer'],
    ['PORT', '-1', 'must not be less than 0'],
    ['PORT', '65536', 'must not be greater than 65535'],
    ['HOST', '   ', 'must not be blank'],
    ['DATA_DIR', ' ', 'must not be blank'],
    ['NODE_ENV', 'staging', 'must be one of the following values: development, production, test'],
    ['LOG_LEVEL', 'loud', 'must be one of the following values'],
    ['DATABASE_URL', 'mysql://x', 'must be a postgres:// or postgresql:// URL'],
    ['DATABASE_URL', 'postgres://', 'must name a host'],
    ['DATABASE_URL', 'localhost:5432', 'must be a postgres:// or postgresql:// URL'],
    ['DATABASE_URL', 'postgres://u@h:99999/db', 'port must be a number from 1 to 65535'],
    ['DATABASE_URL', 'postgres://u@h:0/db', 'port must be a number from 1 to 65535'],
    ['DATABASE_URL', 'postgresql://u@h:5432x/db', 'port must be a number from 1 to 65535'],
    ['DATABASE_URL', 'postgres://u@[::1]:70000/db', 'port must be a number from 1 to 65535'],
    ['DATABASE_URL', 'postgres:///db', 'must name a host'],
    ['DATABASE_URL', 'postgres://u@/db', 'must name a host'],
    ['DATABASE_URL', 'postgres://u@h:5432/my db', 'must not contain white space'],
    ['DATABASE_URL', 'postgres://u@[::1/db', 'is not a valid URL'],
    ['DB_MIGRATE_ON_START', 'yes', 'must be true or false'],
    ['DB_MIGRATE_ON_START', 'TRUE', 'must be true or false'],
    ['DB_POOL_SIZE', '0', 'must not be less than 1'],
    ['DB_POOL_SIZE', '201', 'must not be greater than 200'],
    ['REDIS_URL', 'http://127.0.0.1:6379', 'must be a redis:// or rediss:// URL'],
    ['REDIS_URL', 'redis://127.0.0.1:65536', 'port must be a number from 1 to 65535'],
    ['REDIS_URL', 'rediss://cache:-1', 'port must be a number from 1 to 65535'],
    ['REDIS_URL', 'redis://', 'must name a host'],
    ['REDIS_URL', 'redis://:password@/0', 'must name a host'],
    ['JWT_SECRET', 'too-short', 'must be at least 32 characters'],
    ['SECRETS_KEY', 'not base64!', 'must be 32 bytes, base64-encoded'],
    ['BOOTSTRAP_ADMIN_EMAIL', 'admin', 'must be an e-mail address'],
    ['BOOTSTRAP_ADMIN_PASSWORD', 'short', 'must be longer than or equal to 8 characters'],
    ['BOOTSTRAP_ADMIN_TENANT', 't'.repeat(256), 'must be shorter than or equal to 255 characters'],
    ['WEBHOOK_TIMEOUT_MS', '-1', 'must not be less than 100'],
    ['WEBHOOK_TIMEOUT_MS', 'soon', 'must be an integer'],
    ['WEBHOOK_TIMEOUT_MS', '600001', 'must not be greater than 600000'],
    ['WEBHOOK_SECRET_OVERLAP_MS', '-1', 'must not be less than 0'],
    ['WEBHOOK_SECRET_OVERLAP_MS', 'a day', 'must be an integer'],
    ['WEBHOOK_SECRET_OVERLAP_MS', '2592000001', 'must not be greater than 2592000000'],
    ['WEBHOOK_CONCURRENCY', '0', 'must not be less than 1'],
    ['WEBHOOK_CONCURRENCY', '4097', 'must not be greater than 4096'],
    ['WEBHOOK_DELIVERY_THREADS', '0', 'must not be less than 1'],
    ['WEBHOOK_DELIVERY_THREADS', '17', 'must not be greater than 16'],
    ['WEBHOOK_DELIVERY_THREADS', 'two', 'must be an integer'],
    ['WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB', '12', 'must be 1, 2, 4, 8, 16, 32 or 64'],
    ['WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB', '128', 'must be 1, 2, 4, 8, 16, 32 or 64'],
    ['WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB', '16MB', 'must be an integer'],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', '1', 'must be true or false'],
    ['WEBHOOK_PROXY_URL', 'socks5://proxy:1080', 'must be an http:// or https:// URL'],
    ['WEBHOOK_PROXY_URL', 'http://h:99999', 'port must be a number from 1 to 65535'],
    ['WEBHOOK_PROXY_URL', 'https://proxy:http', 'port must be a number from 1 to 65535'],
    ['WEBHOOK_PROXY_URL', 'http://', 'must name a host'],
    ['WEBHOOK_PROXY_URL', 'http://user:pw@:3128', 'must name a host'],
    ['WEBHOOK_PROXY_URL', 'http://[::1', 'is not a valid URL'],
    ['RATE_LIMIT_LOGIN_PER_MINUTE', '0', 'must not be less than 1'],
    ['RATE_LIMIT_LOGIN_PER_MINUTE', 'ten', 'must be an integer'],
    ['RATE_LIMIT_API_PER_MINUTE', '-5', 'must not be less than 1'],
    ['RATE_LIMIT_RECOVER_PER_MINUTE', '0', 'must not be less than 1'],
    ['RATE_LIMIT_TEST_EVENTS_PER_MINUTE', 'ten', 'must be an integer'],
    ['RATE_LIMIT_RESEND_PER_MINUTE', '1.5', 'must be an integer'],
    ['SUBSCRIPTIONS_PER_TENANT_MAX', '0', 'must not be less than 1'],
    ['SUBSCRIPTIONS_PER_TENANT_MAX', 'lots', 'must be an integer'],
    ['SUBSCRIPTIONS_PER_TENANT_MAX', '1000001', 'must not be greater than 1000000'],
    [
      'TRUST_PROXY',
      'yes',
      'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks',
    ],
    [
      'TRUST_PROXY',
      'True',
      'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks',
    ],
    [
      'TRUST_PROXY',
      '-1',
      'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks',
    ],
    [
      'TRUST_PROXY',
      '10.0.0.0/33',
      'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks',
    ],
    [
      'TRUST_PROXY',
      '10.0.0.1,,10.0.0.2',
      'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks',
    ],
    [
      'TRUST_PROXY',
      '10.0.0.1, proxy.local',
      'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks',
    ],
    ['USER_CACHE_TTL_MS', '60001', 'must not be greater than 60000'],
    ['SHUTDOWN_GRACE_MS', 'x', 'must be an integer'],
    ['SHUTDOWN_GRACE_MS', '600001', 'must not be greater than 600000'],
    ['RETENTION_DAYS', '0', 'must not be less than 1'],
    ['RETENTION_DAYS', '30d', 'must be an integer'],
    ['RETENTION_DAYS', '3651', 'must not be greater than 3650'],
    ['METRICS_TOKEN', 'short-token', 'must be at least 16 characters'],
    ['METRICS_TOKEN', 'scraper token with spaces', 'must be made of the characters of a bearer token'],
    ['REQUEST_TIMEOUT_MS', '99', 'must not be less than 100'],
    ['REQUEST_TIMEOUT_MS', '30s', 'must be an integer'],
    ['REQUEST_TIMEOUT_MS', '600001', 'must not be greater than 600000'],
    ['BODY_BUFFER_BUDGET_MB', '0', 'must not be less than 1'],
    ['BODY_BUFFER_BUDGET_MB', '1.5', 'must be an integer'],
    ['BODY_BUFFER_BUDGET_MB', '65537', 'must not be greater than 65536'],
  ])('%s=%j: "%s"', (name, value, expected) => {
    const message = problem({ [name]: value });
    expect(message).toContain(`Invalid environment variable ${name}: ${expected}`);
    // One line, naming the variable once, never echoing a secret's value.
    expect(message).not.toContain('\n');
    if (name.includes('SECRET') || name.includes('PASSWORD') || name.includes('TOKEN')) {
      expect(message).not.toContain(value);
    }
  });

  it.each([
    ['DATABASE_URL', 'postgres://app:pg-secret-1@db:99999/app'],
    ['DATABASE_URL', 'postgres://app:pg-secret-1@/app'],
    ['REDIS_URL', 'redis://:redis-secret-1@cache:0'],
    ['WEBHOOK_PROXY_URL', 'http://egress:proxy-secret-1@proxy:3128x'],
  ])('never repeats a URL or its password: %s=%j', (name, value) => {
    const message = problem({ [name]: value });
    expect(message).toMatch(new RegExp(`^Invalid environment variable ${name}: `));
    expect(message).not.toMatch(/secret/);
  });

  it('names the first bad variable when several are bad', () => {
    const message = problem({ PORT: 'abc', TRUST_PROXY: 'yes' });
    expect(message).toMatch(/^Invalid environment variable (PORT|TRUST_PROXY): /);
  });

  it.each<[string, string, unknown]>([
    ['PORT', '8080', 8080],
    ['PORT', ' 8080 ', 8080],
    ['PORT', '0', 0],
    ['PORT', '65535', 65535],
    ['TRUST_PROXY', 'true', true],
    ['TRUST_PROXY', 'false', false],
    ['TRUST_PROXY', '0', 0],
    ['TRUST_PROXY', '2', 2],
    ['TRUST_PROXY', '10.0.0.1', ['10.0.0.1']],
    ['TRUST_PROXY', '10.0.0.0/8, 192.0.2.7,2001:db8::/32', ['10.0.0.0/8', '192.0.2.7', '2001:db8::/32']],
    ['DB_MIGRATE_ON_START', 'false', false],
    ['WEBHOOK_ALLOW_PRIVATE_NETWORKS', 'true', true],
    ['WEBHOOK_TIMEOUT_MS', '100', 100],
    ['WEBHOOK_SECRET_OVERLAP_MS', '0', 0],
    ['USER_CACHE_TTL_MS', '0', 0],
    ['RETENTION_DAYS', '1', 1],
    ['SUBSCRIPTIONS_PER_TENANT_MAX', '1', 1],
    ['RATE_LIMIT_RECOVER_PER_MINUTE', '5', 5],
    ['RETENTION_DAYS', '3650', 3650],
    ['METRICS_TOKEN', 'scrape-Token_0123456789~+/=', 'scrape-Token_0123456789~+/='],
    ['REQUEST_TIMEOUT_MS', '100', 100],
    ['BODY_BUFFER_BUDGET_MB', '1', 1],
    ['DATABASE_URL', 'postgresql://u:p@db:5432/app', 'postgresql://u:p@db:5432/app'],
    ['DATABASE_URL', 'postgres://u:p%40ss@[::1]:5432/app', 'postgres://u:p%40ss@[::1]:5432/app'],
    ['DATABASE_URL', 'postgres://db/app', 'postgres://db/app'],
    // The server's Unix socket directory as the host: node-postgres reads the `host` parameter.
    ['DATABASE_URL', 'postgres:///app?host=/var/run/postgresql', 'postgres:///app?host=/var/run/postgresql'],
    ['REDIS_URL', 'rediss://cache:6380', 'rediss://cache:6380'],
    ['REDIS_URL', 'redis://:pw@cache:6379/0', 'redis://:pw@cache:6379/0'],
    ['REDIS_URL', 'redis://cache', 'redis://cache'],
    ['WEBHOOK_PROXY_URL', 'http://proxy:3128', 'http://proxy:3128'],
    [
      'WEBHOOK_PROXY_URL',
      'https://user:pw@proxy.example.com:65535',
      'https://user:pw@proxy.example.com:65535',
    ],
    ['WEBHOOK_PROXY_URL', 'http://[::1]:3128', 'http://[::1]:3128'],
    ['LOG_LEVEL', 'debug', 'debug'],
    ['NODE_ENV', 'production', 'production'],
  ])('accepts %s=%j as %j', (name, value, parsed) => {
    expect((validateEnvironment({ [name]: value }) as unknown as Record<string, unknown>)[name]).toEqual(
      parsed,
    );
  });
});
