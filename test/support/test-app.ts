import 'reflect-metadata';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { NestFastifyApplication } from '@nestjs/platform-fastify';
import type { DestinationStream } from 'pino';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { createApp, CreateAppOptions } from '../../src/app.factory';
import { createRootLogger } from '../../src/common/logging/logger';
import { UserRole } from '../../src/common/reference/enums';
import { loadConfig } from '../../src/config/configuration';
import { DELIVERY_THREAD_SCRIPT } from '../../src/dispatcher/delivery-thread.script';
import { UsersService } from '../../src/users/users.service';
import { createTestDatabase, dropTestDatabase } from './database';
import { tsDeliveryThreadScript } from './delivery-thread-script';

export interface TestUser {
  id: number;
  email: string;
  password: string;
  tenant: string;
  token: string;
}

export interface TestApp {
  app: NestFastifyApplication;
  /** Base URL of the real HTTP server (127.0.0.1, ephemeral port). */
  url: string;
  http: () => ReturnType<typeof request>;
  dataSource: DataSource;
  databaseUrl: string;
  env: Record<string, string>;
  /** Creates a user straight through the service and logs it in over HTTP. */
  createUser(
    options?: Partial<{ role: UserRole; tenant: string; admin: boolean; enabled: boolean }>,
  ): Promise<TestUser>;
  close(): Promise<void>;
}

export interface TestAppOptions {
  /** Use this database instead of a fresh copy of the template (it is then not dropped on close). */
  databaseUrl?: string;
  /** Where the app's JSON log lines go (stdout by default). */
  logDestination?: DestinationStream;
  /** Overrides providers before the app is built (createApp's `configure`), e.g. WEBHOOK_TLS_OPTIONS. */
  configure?: CreateAppOptions['configure'];
}

export const uniq = (prefix = 'x') => `${prefix}-${randomBytes(5).toString('hex')}`;

/** Boots the real AppModule on a fresh database copied from the migrated template. */
export async function startTestApp(
  overrides: Record<string, string> = {},
  options: TestAppOptions = {},
): Promise<TestApp> {
  const database = options.databaseUrl
    ? { url: options.databaseUrl, name: undefined }
    : await createTestDatabase();
  const dataDir = await mkdtemp(join(tmpdir(), 'pis-test-data-'));
  const env: Record<string, string> = {
    NODE_ENV: 'test',
    DATA_DIR: dataDir,
    LOG_LEVEL: process.env.TEST_LOG_LEVEL ?? 'silent',
    JWT_SECRET: randomBytes(32).toString('base64url'),
    SECRETS_KEY: randomBytes(32).toString('base64'),
    // High by default so test files sharing 127.0.0.1 (and Redis) never trip each other;
    // the rate-limit spec sets its own.
    RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
    RATE_LIMIT_API_PER_MINUTE: '100000',
    RATE_LIMIT_RECOVER_PER_MINUTE: '100000',
    RATE_LIMIT_TEST_EVENTS_PER_MINUTE: '100000',
    RATE_LIMIT_RESEND_PER_MINUTE: '100000',
    WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    ...(process.env.REDIS_URL ? { REDIS_URL: process.env.REDIS_URL } : {}),
    ...overrides,
  };
  const { config } = loadConfig(env);
  const app = await createApp(
    config,
    database.url,
    createRootLogger(config.app.logLevel, options.logDestination),
    {
      configure: (builder) => {
        builder.overrideProvider(DELIVERY_THREAD_SCRIPT).useValue(tsDeliveryThreadScript());
        options.configure?.(builder);
      },
    },
  );
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.getHttpServer().address() as { port: number };
  const url = `http://127.0.0.1:${address.port}`;
  const dataSource = app.get(DataSource);
  const users = app.get(UsersService);

  const createUser: TestApp['createUser'] = async (options = {}) => {
    const email = `${uniq('user')}@example.com`;
    const password = `pw-${randomBytes(6).toString('hex')}`;
    const tenant = options.tenant ?? uniq('tenant');
    const user = await users.create({
      email,
      password,
      role: options.role ?? UserRole.ROLE_PARTNER,
      tenant,
      partnerId: 42,
      partnerName: `Partner ${tenant}`,
      administrator: options.admin ?? false,
    });
    const login = await request(url).post('/auth/login').send({ email, password }).expect(200);
    if (options.enabled === false) await users.update(user.id, { enabled: false });
    return { id: user.id, email, password, tenant, token: login.body.token };
  };

  return {
    app,
    url,
    http: () => request(url),
    dataSource,
    databaseUrl: database.url,
    env,
    createUser,
    close: async () => {
      await app.close();
      if (database.name) await dropTestDatabase(database.name);
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}
