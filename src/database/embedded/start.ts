import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { makeOwnerOnlyDir, writeOwnerOnlyFile } from '../../config/owner-only-files';
import { Binaries, binaries, PostgresUser, reachableBinaries, runAs } from './binaries';
import { DATABASE_NAME, ensureDatabase, initCluster, serverUrl, socketDirFor } from './cluster';
import { freePort, launch, RELAUNCH_MS } from './launcher';
import { isAlive, removeStalePidFile, runningPostmaster } from './postmaster';
import { reachableClusterDir, removeOrphanClusters } from './root-fallback';
import { Supervisor } from './supervisor';

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

/** A DATA_DIR's cluster, ready to be started, and the files the service keeps beside it. */
interface Cluster {
  clusterDir: string;
  /** The pid of the process that started the server, which stops it. */
  ownerFile: string;
  logFile: string;
  password: string;
  bins: Binaries;
  user: PostgresUser;
}

/** Makes DATA_DIR, the server's password and, on the first start, the cluster. */
async function prepareCluster(options: EmbeddedOptions, log: (message: string) => void): Promise<Cluster> {
  const dataDir = resolve(options.dataDir);
  let clusterDir = join(dataDir, 'pg');
  const passwordFile = join(dataDir, 'pg-password');
  const user = await runAs();
  let bins = await binaries();

  makeOwnerOnlyDir(dataDir);
  if (user) {
    bins = await reachableBinaries(bins, log);
    clusterDir = await reachableClusterDir(clusterDir, log);
    await removeOrphanClusters(log);
  }
  if (!existsSync(passwordFile)) writeOwnerOnlyFile(passwordFile, randomBytes(24).toString('hex') + '\n');
  const password = (await readFile(passwordFile, 'utf8')).trim();
  if (!existsSync(join(clusterDir, 'PG_VERSION'))) {
    log(`initialising embedded PostgreSQL in ${clusterDir}`);
    await initCluster(bins, clusterDir, password, user);
  }
  const [ownerFile, logFile] = [join(dataDir, 'pg-owner'), join(dataDir, 'postgres.log')];
  return { clusterDir, ownerFile, logFile, password, bins, user };
}

/**
 * An owned server is watched and started again, on the same port and socket (the pool's URL), when
 * it dies.
 */
function supervised(
  cluster: Cluster,
  options: EmbeddedOptions,
  server: { pid: number; port: number; socketDir: string | undefined },
): RunningDatabase {
  const { clusterDir, password } = cluster;
  const { port, socketDir } = server;
  const relaunch = async () => {
    await removeStalePidFile(join(clusterDir, 'postmaster.pid'), clusterDir);
    const url = serverUrl(password, port, socketDir, 'postgres');
    return launch({ ...cluster, port, socketDir, url }, RELAUNCH_MS);
  };
  const log = options.log ?? (() => undefined);
  const supervisor = new Supervisor(
    server.pid,
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
}

/**
 * A server already running on the cluster: joined while the process that started it lives, else
 * adopted. A stale `postmaster.pid` (its process gone, or the pid reused by something else) is removed.
 */
async function joinRunningServer(
  cluster: Cluster,
  options: EmbeddedOptions,
  log: (message: string) => void,
): Promise<RunningDatabase | undefined> {
  const pidFile = join(cluster.clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const server = runningPostmaster(cluster.clusterDir);
  if (!server) {
    log('removing a stale postmaster.pid left by a killed run');
    await removeStalePidFile(pidFile, cluster.clusterDir);
    return undefined;
  }
  const { ownerFile } = cluster;
  const ownerPid = Number(existsSync(ownerFile) ? readFileSync(ownerFile, 'utf8') : 0);
  if (ownerPid > 0 && ownerPid !== process.pid && isAlive(ownerPid)) {
    log(`joining the embedded PostgreSQL already running (pid ${server.pid})`);
    const url = serverUrl(cluster.password, server.port, server.socketDir, DATABASE_NAME);
    return { url, owned: false, stop: async () => undefined };
  }
  log(`adopting the embedded PostgreSQL left running by an earlier process (pid ${server.pid})`);
  writeOwnerOnlyFile(ownerFile, String(process.pid));
  return supervised(cluster, options, server);
}

async function startServer(
  cluster: Cluster,
  options: EmbeddedOptions,
  log: (message: string) => void,
): Promise<RunningDatabase> {
  const port = options.port ?? (await freePort());
  writeOwnerOnlyFile(cluster.ownerFile, String(process.pid));
  const socketDir = socketDirFor(cluster.clusterDir, port);
  const adminUrl = serverUrl(cluster.password, port, socketDir, 'postgres');
  const pid = await launch({ ...cluster, port, socketDir, url: adminUrl });
  await ensureDatabase(adminUrl);
  const socket = socketDir === undefined ? 'no Unix socket for this folder' : `socket in ${socketDir}`;
  log(`embedded PostgreSQL listening on 127.0.0.1:${port}, ${socket} (data in ${cluster.clusterDir})`);
  return supervised(cluster, options, { pid, port, socketDir });
}

/**
 * Starts (or joins) a PostgreSQL cluster kept in `<dataDir>/pg`.
 * - A server already running on that directory is reused; if the process that started it is gone
 *   (a crash, a SIGKILL), this process adopts it and stops it on shutdown, so nothing is orphaned.
 * - A stale `postmaster.pid` (its process gone, or the pid reused by something else) is removed.
 */
export async function startEmbeddedPostgres(options: EmbeddedOptions): Promise<RunningDatabase> {
  const log = options.log ?? (() => undefined);
  const cluster = await prepareCluster(options, log);
  return (await joinRunningServer(cluster, options, log)) ?? startServer(cluster, options, log);
}
