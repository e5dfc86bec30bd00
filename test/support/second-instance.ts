import { buildService, ServiceProcess } from './service-process';
import type { TestApp } from './test-app';

/**
 * Another instance of the service on `t`'s database, as a child process (Passport keeps one
 * strategy registry per process), with the same secrets and user-check bound, and no limits in
 * the way. `stop` ends it and removes its build.
 */
export async function startSecondInstance(
  t: TestApp,
  userCacheTtlMs: number,
  /** More variables, e.g. NODE_EXTRA_CA_CERTS for a test's HTTPS receivers. */
  extraEnv: Record<string, string> = {},
): Promise<{ instance: ServiceProcess; stop: () => Promise<void> }> {
  const build = await buildService();
  try {
    const instance = await ServiceProcess.start(build.main, {
      DATABASE_URL: t.databaseUrl,
      JWT_SECRET: t.env.JWT_SECRET,
      SECRETS_KEY: t.env.SECRETS_KEY,
      USER_CACHE_TTL_MS: String(userCacheTtlMs),
      RATE_LIMIT_API_PER_MINUTE: '100000',
      RATE_LIMIT_LOGIN_PER_MINUTE: '100000',
      DB_MIGRATE_ON_START: 'false',
      ...extraEnv,
    });
    return {
      instance,
      stop: async () => {
        await instance.stop('SIGTERM');
        await build.remove();
      },
    };
  } catch (error) {
    await build.remove();
    throw error;
  }
}
