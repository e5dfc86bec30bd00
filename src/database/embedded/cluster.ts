import { execFile } from 'node:child_process';
import { chown, mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { writeOwnerOnlyFile } from '../../config/owner-only-files';
import type { Binaries, PostgresUser } from './binaries';

const run = promisify(execFile);
export const DATABASE_NAME = 'partner_integration';
/** The longest Unix socket path every platform takes (macOS: 104 bytes with the final NUL). */
const MAX_SOCKET_PATH_BYTES = 103;

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
export function serverUrl(
  password: string,
  port: number,
  socketDir: string | undefined,
  database: string,
): string {
  const url = `postgres://postgres:${password}@127.0.0.1:${port}/${database}`;
  return socketDir === undefined ? url : `${url}?host=${encodeURIComponent(socketDir)}`;
}

const INITDB_ARGUMENTS = [
  '-U',
  'postgres',
  '--auth=scram-sha-256',
  '-E',
  'UTF8',
  '--locale=C',
  // PostgreSQL 17's own C.UTF-8: byte-order sorting like C, but lower()/upper() fold every
  // Unicode letter (case-insensitive search), whatever locales the machine has.
  '--locale-provider=builtin',
  '--builtin-locale=C.UTF-8',
];

/** Creates a fresh cluster in `clusterDir` (anything there before is removed) with `password`. */
export async function initCluster(
  bins: Binaries,
  clusterDir: string,
  password: string,
  user: PostgresUser,
): Promise<void> {
  await rm(clusterDir, { recursive: true, force: true });
  await mkdir(clusterDir, { recursive: true, mode: 0o700 });
  const pwFile = join(dirname(clusterDir), `.initdb-pw-${process.pid}`);
  writeOwnerOnlyFile(pwFile, password);
  if (user) {
    await chown(clusterDir, user.uid, user.gid);
    await chown(pwFile, user.uid, user.gid);
  }
  try {
    await run(bins.initdb, ['-D', clusterDir, ...INITDB_ARGUMENTS, `--pwfile=${pwFile}`], {
      ...(user ?? {}),
      env: { ...process.env, LC_ALL: 'C' },
    });
  } catch (error) {
    throw new Error(`initdb failed: ${String((error as { stderr?: string }).stderr ?? error).trim()}`, {
      cause: error,
    });
  } finally {
    await rm(pwFile, { force: true });
  }
}

/** Creates the application database on a server that has none yet. */
export async function ensureDatabase(adminUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    const exists = await admin.query('SELECT 1 FROM pg_database WHERE datname = $1', [DATABASE_NAME]);
    if (exists.rowCount === 0) await admin.query(`CREATE DATABASE ${DATABASE_NAME}`);
  } finally {
    await admin.end();
  }
}
