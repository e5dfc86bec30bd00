import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import {
  chmod,
  chown,
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
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { stopPostmasterOf } from './postmaster';

const run = promisify(execFile);
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

/** Whether a user other than the owner can enter every folder above `path` (all need o+x). */
export async function othersCanReach(path: string): Promise<boolean> {
  for (let current = dirname(path); ; current = dirname(current)) {
    if (((await stat(current)).mode & 0o001) === 0) return false;
    if (current === dirname(current)) return true;
  }
}

/** A folder root owns and only root writes to, whoever created it first. */
export async function rootOwnedDir(path: string): Promise<void> {
  await mkdir(path, { recursive: true });
  await chown(path, 0, 0);
  await chmod(path, 0o755);
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

/** Whether a cluster folder is one of ours (in the fallback folder, or its old world-writable home). */
const isFallbackCluster = (dir: string) =>
  [LEGACY_FALLBACK_DIR, CLUSTERS_DIR].some((parent) => dir.startsWith(`${parent}/`));

/** Moves the cluster a DATA_DIR linked to before into `real`, its folder's place now. */
async function moveCluster(previous: string, real: string, log: (message: string) => void): Promise<void> {
  log(`moving the embedded PostgreSQL cluster from ${previous} to ${real}`);
  await stopPostmasterOf(previous);
  await rename(previous, real).catch(async () => {
    await run('cp', ['-a', previous, real]);
    await rm(previous, { recursive: true, force: true });
  });
  if (previous.startsWith(`${CLUSTERS_DIR}/`)) await rm(dirname(previous), { recursive: true, force: true });
}

/**
 * As root, a cluster in a DATA_DIR the postgres user cannot reach lives in
 * `/var/lib/partner-integration-service/clusters/<hash of DATA_DIR>/pg` instead (owned by postgres,
 * in a folder owned by root that records the DATA_DIR), linked from `<DATA_DIR>/pg`.
 */
export async function reachableClusterDir(
  clusterDir: string,
  log: (message: string) => void,
): Promise<string> {
  if (await othersCanReach(clusterDir)) return clusterDir;
  const dataDir = dirname(clusterDir);
  const folder = join(CLUSTERS_DIR, createHash('sha256').update(clusterDir).digest('hex').slice(0, 16));
  const real = join(folder, 'pg');
  const existing = await lstat(clusterDir).catch(() => undefined);
  if (existing && !existing.isSymbolicLink()) return clusterDir; // an older cluster in place: keep using it
  const linked = existing ? await readlink(clusterDir) : undefined;
  // A cluster this DATA_DIR already links to elsewhere: moved here when it is ours (from the old
  // world-writable folder, or from the hash of the path this DATA_DIR had before it was renamed).
  const previous =
    linked !== undefined && linked !== real && existsSync(join(linked, 'PG_VERSION')) ? linked : undefined;
  if (previous && !isFallbackCluster(previous)) return previous; // linked by hand to a folder postgres can reach
  if (linked !== real) {
    // Not linked here yet: what this folder holds belongs to an earlier DATA_DIR of the same path
    // (its password file went with it), so it starts afresh or takes over the previous cluster.
    await stopPostmasterOf(real);
    await rm(folder, { recursive: true, force: true });
  }
  for (const dir of [ROOT_FALLBACK_DIR, CLUSTERS_DIR, folder]) await rootOwnedDir(dir);
  if (previous) await moveCluster(previous, real, log);
  if (linked !== undefined && linked !== real) await rm(clusterDir, { force: true });
  if (linked !== real) await symlink(real, clusterDir);
  // Written last: a clean-up elsewhere that finds it finds the link too, so never takes it for an orphan.
  writeFileSync(join(folder, OWNER_DATA_DIR_FILE), `${dataDir}\n`, { mode: 0o644 });
  log(`the postgres user cannot reach ${dataDir}: the cluster lives in ${real}, linked from ${clusterDir}`);
  return real;
}
