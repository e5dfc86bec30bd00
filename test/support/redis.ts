import { spawnSync } from 'node:child_process';

const LOCAL_REDIS = 'redis://127.0.0.1:6379';

/**
 * Which Redis a shared-counter test uses: REDIS_URL (CI's second pass), else a Redis answering
 * at 127.0.0.1:6379 (probed with ioredis in a child process, as test names are fixed before any
 * asynchronous work), else none and such a test is skipped under a name that says so.
 */
export function redisForTests(): { url: string; source: string } | undefined {
  if (process.env.REDIS_URL) return { url: process.env.REDIS_URL, source: 'REDIS_URL' };
  const probe = spawnSync(
    process.execPath,
    [
      '-e',
      `const R = require('ioredis');
       const r = new R(${JSON.stringify(LOCAL_REDIS)}, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null, connectTimeout: 2000 });
       r.connect().then(() => r.ping()).then((p) => process.exit(p === 'PONG' ? 0 : 1), () => process.exit(1));`,
    ],
    { cwd: `${__dirname}/../..`, timeout: 5000, stdio: 'ignore' },
  );
  return probe.status === 0 ? { url: LOCAL_REDIS, source: `a Redis found at ${LOCAL_REDIS}` } : undefined;
}
