import { plainToInstance, Transform } from 'class-transformer';
import ipaddr from 'ipaddr.js';
import {
  IsBase64,
  IsEmail,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  MinLength,
  ValidateBy,
  validateSync,
  ValidationError,
} from 'class-validator';

/** Thrown for any bad or missing variable; main.ts prints its message as one line and exits 1. */
export class ConfigError extends Error {
  constructor(variable: string, problem: string) {
    super(`Invalid environment variable ${variable}: ${problem}`);
    this.name = 'ConfigError';
  }
}

const toInt = ({ value }: { value: unknown }) =>
  typeof value === 'string' && /^-?\d+$/.test(value.trim()) ? Number(value.trim()) : value;
// Only the two words are booleans: "yes", "1" or "TRUE " are reported, not guessed.
const toBool = ({ value }: { value: unknown }) =>
  value === 'true' ? true : value === 'false' ? false : value;
const BOOL = { message: 'must be true or false' };
const INT = { message: 'must be an integer' };
const NOT_BLANK = { message: 'must not be blank' };

interface ConnectionUrlRule {
  /** What the value must be, said when the scheme is wrong: "a redis:// or rediss:// URL". */
  what: string;
  schemes: readonly string[];
  /** PostgreSQL: the host may come from a `host` query parameter instead (a Unix socket directory). */
  hostInQuery?: boolean;
}

/** TRUST_PROXY: trust nobody or everybody, a hop count, or these proxies (see fastifyTrustProxy). */
export type TrustProxy = boolean | number | string[];

/** An address or CIDR block ipaddr.js (and proxy-addr, which Fastify uses) understands. */
const isAddressOrCidr = (entry: string) => (entry.includes('/') ? isCidr(entry) : ipaddr.isValid(entry));
const isCidr = (entry: string) => {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
};

const toTrustProxy = ({ value }: { value: unknown }): unknown => {
  if (typeof value !== 'string') return value;
  const trimmed = value.trim();
  if (trimmed === 'true' || trimmed === 'false') return trimmed === 'true';
  if (/^\d+$/.test(trimmed)) return Number(trimmed);
  const entries = trimmed.split(',').map((entry) => entry.trim());
  return entries.every(isAddressOrCidr) ? entries : value;
};

const TRUST_PROXY_FORMS =
  'must be true or false, a hop count, or a comma-separated list of IP addresses and CIDR blocks';
const IsTrustProxy = (): PropertyDecorator =>
  ValidateBy({
    name: 'isTrustProxy',
    validator: {
      validate: (value) =>
        typeof value === 'boolean' ||
        (typeof value === 'number' && Number.isSafeInteger(value)) ||
        Array.isArray(value),
      defaultMessage: () => TRUST_PROXY_FORMS,
    },
  });

const PORT_RANGE = 'port must be a number from 1 to 65535';

/**
 * Why a URL the service connects to can't be used, or undefined. Parsed as its client will parse it
 * (WHATWG URL), so a bad port or a missing host stops the start-up here, naming the variable,
 * instead of failing later without naming it. Messages never repeat the value: it may hold a password.
 */
function connectionUrlProblem(value: unknown, rule: ConnectionUrlRule): string | undefined {
  const wrongScheme = `must be ${rule.what}`;
  if (typeof value !== 'string') return wrongScheme;
  if (/\s/.test(value)) return 'must not contain white space';
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(value)?.[1];
  if (scheme === undefined || !rule.schemes.includes(scheme.toLowerCase())) return wrongScheme;
  // scheme://[user-info@]host[:port][/path][?query]; the port is checked by hand for a precise message.
  const authority = value.slice(scheme.length + 3).split(/[/?#]/, 1)[0];
  const hostPort = /^(\[[^\]]*\]|[^[:][^:]*|)(?::(.*))?$/.exec(
    authority.slice(authority.lastIndexOf('@') + 1),
  );
  const port = hostPort?.[2];
  if (port && !(/^\d{1,5}$/.test(port) && Number(port) >= 1 && Number(port) <= 65535)) return PORT_RANGE;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return hostPort?.[1] === '' ? 'must name a host' : 'is not a valid URL';
  }
  if (!url.hostname && !(rule.hostInQuery && url.searchParams.get('host'))) return 'must name a host';
  return undefined;
}

/** A URL the service connects to: scheme, host and port checked (connectionUrlProblem). */
const IsConnectionUrl = (rule: ConnectionUrlRule): PropertyDecorator =>
  ValidateBy({
    name: 'isConnectionUrl',
    validator: {
      validate: (value) => connectionUrlProblem(value, rule) === undefined,
      defaultMessage: (args) => connectionUrlProblem(args?.value, rule) ?? 'is not a valid URL',
    },
  });

/** Every variable of service contract section 1, as strings arrive from the environment. */
export class EnvironmentVariables {
  @IsOptional() @IsIn(['development', 'production', 'test']) NODE_ENV?: string;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(0) @Max(65535) PORT?: number;
  @IsOptional() @IsString() @Matches(/\S/, NOT_BLANK) HOST?: string;
  @IsOptional() @IsString() @Matches(/\S/, NOT_BLANK) DATA_DIR?: string;
  @IsOptional() @IsIn(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']) LOG_LEVEL?: string;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(100) @Max(600000) REQUEST_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) @Max(65536) BODY_BUFFER_BUDGET_MB?: number;

  @IsOptional()
  @IsConnectionUrl({
    what: 'a postgres:// or postgresql:// URL',
    schemes: ['postgres', 'postgresql'],
    hostInQuery: true,
  })
  DATABASE_URL?: string;
  @IsOptional() @Transform(toBool) @IsIn([true, false], BOOL) DB_MIGRATE_ON_START?: boolean;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) @Max(200) DB_POOL_SIZE?: number;

  @IsOptional()
  @IsConnectionUrl({ what: 'a redis:// or rediss:// URL', schemes: ['redis', 'rediss'] })
  REDIS_URL?: string;

  @IsOptional() @IsString() @MinLength(32, { message: 'must be at least 32 characters' }) JWT_SECRET?: string;
  @IsOptional() @IsBase64(undefined, { message: 'must be 32 bytes, base64-encoded' }) SECRETS_KEY?: string;

  @IsOptional() @IsEmail({}, { message: 'must be an e-mail address' }) BOOTSTRAP_ADMIN_EMAIL?: string;
  @IsOptional() @IsString() @MinLength(8) @MaxLength(255) BOOTSTRAP_ADMIN_PASSWORD?: string;
  @IsOptional() @IsString() @MinLength(1) @MaxLength(255) BOOTSTRAP_ADMIN_TENANT?: string;

  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(100) @Max(600000) WEBHOOK_TIMEOUT_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) @Max(4096) WEBHOOK_CONCURRENCY?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) @Max(16) WEBHOOK_DELIVERY_THREADS?: number;
  // V8 sizes semi-spaces in powers of two.
  @IsOptional()
  @Transform(toInt)
  @IsInt(INT)
  @IsIn([1, 2, 4, 8, 16, 32, 64], { message: 'must be 1, 2, 4, 8, 16, 32 or 64' })
  WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB?: number;
  @IsOptional() @Transform(toBool) @IsIn([true, false], BOOL) WEBHOOK_ALLOW_PRIVATE_NETWORKS?: boolean;
  @IsOptional()
  @IsConnectionUrl({ what: 'an http:// or https:// URL', schemes: ['http', 'https'] })
  WEBHOOK_PROXY_URL?: string;
  // How long a rotated-out signing secret keeps signing (contract section 9); at most 30 days.
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(0) @Max(2592000000) WEBHOOK_SECRET_OVERLAP_MS?: number;

  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) RATE_LIMIT_LOGIN_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) RATE_LIMIT_API_PER_MINUTE?: number;
  // The partner tools' budgets per subscription (contract section 8, Partner-tool budgets).
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) RATE_LIMIT_RECOVER_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) RATE_LIMIT_TEST_EVENTS_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) RATE_LIMIT_RESEND_PER_MINUTE?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) @Max(1000000) SUBSCRIPTIONS_PER_TENANT_MAX?: number;
  @IsOptional() @Transform(toTrustProxy) @IsTrustProxy() TRUST_PROXY?: TrustProxy;

  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(0) @Max(60000) USER_CACHE_TTL_MS?: number;
  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(0) @Max(600000) SHUTDOWN_GRACE_MS?: number;

  @IsOptional() @Transform(toInt) @IsInt(INT) @Min(1) @Max(3650) RETENTION_DAYS?: number;
  // A bearer token (RFC 6750 b64token characters), long enough not to be guessed.
  @IsOptional()
  @IsString()
  @MinLength(16, { message: 'must be at least 16 characters' })
  @MaxLength(1024, { message: 'must be at most 1024 characters' })
  @Matches(/^[A-Za-z0-9\-._~+/]+=*$/, { message: 'must be made of the characters of a bearer token' })
  METRICS_TOKEN?: string;
}

function firstProblem(errors: ValidationError[]): ConfigError {
  const error = errors[0];
  const constraints = error.constraints ?? {};
  // The type check first: PORT=abc is "must be an integer", not the range check that also failed.
  const problem = constraints.isInt ?? Object.values(constraints)[0] ?? 'is invalid';
  // class-validator repeats the property name at the start of its messages.
  return new ConfigError(error.property, problem.replace(new RegExp(`^${error.property} `), ''));
}

/** Validates the raw environment; only the variables above are read, empty strings count as unset. */
export function validateEnvironment(env: NodeJS.ProcessEnv): EnvironmentVariables {
  const known = Object.keys(new EnvironmentVariablesKeys());
  const plain: Record<string, string> = {};
  for (const key of known) {
    const value = env[key];
    if (value !== undefined && value !== '') plain[key] = value;
  }
  const vars = plainToInstance(EnvironmentVariables, plain);
  const errors = validateSync(vars, { forbidUnknownValues: false });
  if (errors.length > 0) throw firstProblem(errors);
  return vars;
}

/** The variable names, for reading exactly those from the environment. */
class EnvironmentVariablesKeys implements Record<keyof EnvironmentVariables, true> {
  NODE_ENV = true as const;
  PORT = true as const;
  HOST = true as const;
  DATA_DIR = true as const;
  LOG_LEVEL = true as const;
  REQUEST_TIMEOUT_MS = true as const;
  BODY_BUFFER_BUDGET_MB = true as const;
  DATABASE_URL = true as const;
  DB_MIGRATE_ON_START = true as const;
  DB_POOL_SIZE = true as const;
  REDIS_URL = true as const;
  JWT_SECRET = true as const;
  SECRETS_KEY = true as const;
  BOOTSTRAP_ADMIN_EMAIL = true as const;
  BOOTSTRAP_ADMIN_PASSWORD = true as const;
  BOOTSTRAP_ADMIN_TENANT = true as const;
  WEBHOOK_TIMEOUT_MS = true as const;
  WEBHOOK_CONCURRENCY = true as const;
  WEBHOOK_DELIVERY_THREADS = true as const;
  WEBHOOK_DELIVERY_THREAD_SEMI_SPACE_MB = true as const;
  WEBHOOK_ALLOW_PRIVATE_NETWORKS = true as const;
  WEBHOOK_PROXY_URL = true as const;
  WEBHOOK_SECRET_OVERLAP_MS = true as const;
  RATE_LIMIT_LOGIN_PER_MINUTE = true as const;
  RATE_LIMIT_API_PER_MINUTE = true as const;
  RATE_LIMIT_RECOVER_PER_MINUTE = true as const;
  RATE_LIMIT_TEST_EVENTS_PER_MINUTE = true as const;
  RATE_LIMIT_RESEND_PER_MINUTE = true as const;
  SUBSCRIPTIONS_PER_TENANT_MAX = true as const;
  TRUST_PROXY = true as const;
  USER_CACHE_TTL_MS = true as const;
  SHUTDOWN_GRACE_MS = true as const;
  RETENTION_DAYS = true as const;
  METRICS_TOKEN = true as const;
}
