/* global process, performance, setTimeout */
// The service under test as a separate process, exactly as `npm start` runs it (startCommand),
// plus the small HTTP client the bench uses for set-up calls.
import { closeSync, existsSync, openSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { spawnTracked, stopChild, waitForExit } from './processes.mjs';

/**
 * How `npm start` runs the service (package.json): its variables and node options, e.g.
 * `exec env MALLOC_TRIM_THRESHOLD_=131072 node --max-old-space-size=256 --max-semi-space-size=8
 * dist/src/main.js`. The bench runs the same command without npm in between, so the measured
 * process is the service itself.
 */
export function startCommand(repoRoot) {
  const script = JSON.parse(readFileSync(join(repoRoot, 'package.json'), 'utf8')).scripts.start;
  const match =
    /^(?:exec\s+)?(?:env\s+)?((?:[A-Za-z_][A-Za-z0-9_]*=\S+\s+)*)node\s+((?:--\S+\s+)*)(\S+)$/.exec(
      script.trim(),
    );
  if (!match) throw new Error(`cannot read the start script of package.json: ${script}`);
  const env = Object.fromEntries(
    match[1]
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  );
  return { env, nodeArgs: match[2].split(/\s+/).filter(Boolean), script: match[3] };
}

/** Variables the bench decides; any value in the caller's environment is not passed on. */
const OWNED_VARIABLES = [
  'NODE_ENV',
  'PORT',
  'HOST',
  'DATA_DIR',
  'DATABASE_URL',
  'DB_MIGRATE_ON_START',
  'LOG_LEVEL',
  'JWT_SECRET',
  'SECRETS_KEY',
  'BOOTSTRAP_ADMIN_EMAIL',
  'BOOTSTRAP_ADMIN_PASSWORD',
  'BOOTSTRAP_ADMIN_TENANT',
  'RATE_LIMIT_API_PER_MINUTE',
  'RATE_LIMIT_LOGIN_PER_MINUTE',
  'SUBSCRIPTIONS_PER_TENANT_MAX',
  'TRUST_PROXY',
  'WEBHOOK_ALLOW_PRIVATE_NETWORKS',
  'WEBHOOK_PROXY_URL',
  'NODE_EXTRA_CA_CERTS',
  'NODE_OPTIONS',
];

export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

const agent = new Agent({ connections: 16, keepAliveTimeout: 30_000 });

export async function closeHttpClient() {
  await agent.close();
}

/** One call to the service: { status, body (parsed JSON when possible), text }. */
export async function call(base, method, path, { token, body, timeoutMs = 30_000 } = {}) {
  const headers = { accept: 'application/hal+json' };
  if (token) headers.authorization = `Bearer ${token}`;
  if (body !== undefined) headers['content-type'] = 'application/json';
  const res = await request(base + path, {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    dispatcher: agent,
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
  });
  const text = await res.body.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.statusCode, body: json, text };
}

function tail(file, lines = 15) {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/** Starts before one gives up on a port taken meanwhile (freePort's port is free only when chosen). */
const PORT_ATTEMPTS = 3;

/**
 * Starts the service and waits for /health/ready. `env` is what the bench sets; `nodeArgs` e.g.
 * --cpu-prof. Resolves to { child, base, logFile, stop() }. The port is chosen free, then bound by
 * the service; when something else (the embedded PostgreSQL choosing its port the same way) took it
 * in between, it starts again on another.
 */
export async function startService(options) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(options);
    } catch (error) {
      if (attempt === PORT_ATTEMPTS || !String(error.message).includes('EADDRINUSE')) throw error;
    }
  }
}

async function startServiceOnce({
  repoRoot,
  dataDir,
  logFile,
  env,
  nodeArgs = [],
  readyTimeoutMs = 120_000,
}) {
  const port = await freePort();
  const start = startCommand(repoRoot);
  const childEnv = { ...process.env };
  for (const name of OWNED_VARIABLES) delete childEnv[name];
  Object.assign(childEnv, start.env, env, { PORT: String(port), HOST: '127.0.0.1', DATA_DIR: dataDir });
  const log = openSync(logFile, 'a');
  const spawnedAt = performance.timeOrigin + performance.now();
  const child = spawnTracked(
    'service',
    process.execPath,
    [...start.nodeArgs, ...nodeArgs, join(repoRoot, start.script)],
    { cwd: repoRoot, env: childEnv, stdio: ['ignore', log, log] },
    // Graceful shutdown: HTTP, in-flight deliveries (SHUTDOWN_GRACE_MS), then embedded PostgreSQL.
    30_000,
  );
  closeSync(log);
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + readyTimeoutMs;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(
        `the service exited during start-up (${child.signalCode ?? child.exitCode}):\n${tail(logFile)}`,
      );
    try {
      const res = await call(base, 'GET', '/health/ready', { timeoutMs: 2000 });
      if (res.status === 200) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline)
      throw new Error(`the service was not ready within ${readyTimeoutMs} ms:\n${tail(logFile)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    child,
    base,
    logFile,
    pid: child.pid,
    spawnedAt,
    stop: async () => {
      await stopChild(child, 30_000);
      return waitForExit(child, 1000);
    },
  };
}

/** The embedded server's URL, from the files the service keeps in DATA_DIR. */
export function embeddedDatabaseUrl(dataDir) {
  const pidFile = join(dataDir, 'pg', 'postmaster.pid');
  const passwordFile = join(dataDir, 'pg-password');
  if (!existsSync(pidFile) || !existsSync(passwordFile))
    throw new Error(`no embedded PostgreSQL in ${dataDir} (is DATABASE_URL set for the service?)`);
  // postmaster.pid: pid, data folder, start time, port, socket folder (empty: none), …
  const [, , , port, socketDir] = readFileSync(pidFile, 'utf8').split('\n');
  const password = readFileSync(passwordFile, 'utf8').trim();
  // The service's own way in (its Unix socket when the server has one), so that the same-work
  // baselines talk to PostgreSQL as the service does.
  const url = `postgres://postgres:${password}@127.0.0.1:${Number(port)}/partner_integration`;
  return socketDir ? `${url}?host=${encodeURIComponent(socketDir)}` : url;
}
