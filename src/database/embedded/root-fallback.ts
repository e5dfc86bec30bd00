import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, writeFileSync } from 'node:fs';
import {
  chmod,
  chown,
  link as hardLink,
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
/**
 * In each fallback cluster folder: a hard link to the symbolic link `<DATA_DIR>/pg`. Its link count
 * tells a renamed DATA_DIR (the link lives on under another name: 2) from a removed one (1), which
 * the recorded path alone cannot. Made only when DATA_DIR is on the same file system.
 */
const DATA_DIR_LINK_TWIN = 'data-dir-link';

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
 * Whether a fallback cluster's DATA_DIR still exists: it links to the cluster, or it was renamed
 * (its link lives on under the new name, and finds the cluster at that DATA_DIR's next start).
 */
async function dataDirExists(folder: string, dataDir: string): Promise<boolean> {
  if ((await readlink(join(dataDir, 'pg')).catch(() => undefined)) === join(folder, 'pg')) return true;
  const twin = await lstat(join(folder, DATA_DIR_LINK_TWIN)).catch(() => undefined);
  return twin !== undefined && twin.nlink > 1;
}

/**
 * Removes the fallback clusters whose DATA_DIR is gone, stopping a postmaster left running on one.
 * Run at every start as root and by the test suite's teardown. A folder without its `data-dir`
 * record yet is another process' cluster being set up: left alone.
 */
export async function removeOrphanClusters(log: (message: string) => void = () => undefined): Promise<void> {
  const ids = await readdir(CLUSTERS_DIR).catch(() => [] as string[]);
  for (const id of ids) {
    const folder = join(CLUSTERS_DIR, id);
    const dataDir = (await readFile(join(folder, OWNER_DATA_DIR_FILE), 'utf8').catch(() => '')).trim();
    if (!dataDir || (await dataDirExists(folder, dataDir))) continue;
    log(`removing the embedded PostgreSQL cluster ${folder}: its DATA_DIR ${dataDir} is gone`);
    try {
      await stopPostmasterOf(join(folder, 'pg'));
      await rm(folder, { recursive: true, force: true });
    } catch (error) {
      log(`could not remove ${folder}: ${String(error)}`); // tried again at the next start
    }
  }
}

/** Moves a cluster from the earlier world-writable folder into `real`, its place now. */
async function moveLegacyCluster(
  previous: string,
  real: string,
  log: (message: string) => void,
): Promise<void> {
  log(`moving the embedded PostgreSQL cluster from ${previous} to ${real}`);
  await stopPostmasterOf(previous);
  await rename(previous, real).catch(async () => {
    await run('cp', ['-a', previous, real]);
    await rm(previous, { recursive: true, force: true });
  });
}

/** Makes `twin` a hard link to the symbolic link `link` itself (Linux's link(2) does not follow it). */
async function twinLink(link: string, twin: string, log: (message: string) => void): Promise<void> {
  const [linkInfo, twinInfo] = await Promise.all([lstat(link), lstat(twin).catch(() => undefined)]);
  if (twinInfo?.ino === linkInfo.ino && twinInfo.dev === linkInfo.dev) return;
  await rm(twin, { force: true });
  await hardLink(link, twin).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EXDEV') throw error;
    log(
      `${dirname(link)} is on another file system than ${CLUSTERS_DIR}: after renaming it, start it before any other service, or its cluster is taken for an orphan`,
    );
  });
}

/**
 * As root, a cluster in a DATA_DIR the postgres user cannot reach lives in
 * `/var/lib/partner-integration-service/clusters/<random id>/pg` instead (owned by postgres, in a
 * folder owned by root that records the DATA_DIR), linked from `<DATA_DIR>/pg`. The link is what
 * finds it, so a renamed DATA_DIR keeps its cluster where it is, and a new DATA_DIR at a renamed
 * one's old path gets a folder of its own.
 */
export async function reachableClusterDir(
  clusterDir: string,
  log: (message: string) => void,
): Promise<string> {
  if (await othersCanReach(clusterDir)) return clusterDir;
  const existing = await lstat(clusterDir).catch(() => undefined);
  if (existing && !existing.isSymbolicLink()) return clusterDir; // an older cluster in place: keep using it
  const linked = existing ? await readlink(clusterDir) : undefined;
  const within = (parent: string) => linked !== undefined && linked.startsWith(`${parent}/`);
  const initialised = linked !== undefined && existsSync(join(linked, 'PG_VERSION'));
  if (initialised && !within(CLUSTERS_DIR) && !within(LEGACY_FALLBACK_DIR)) return linked; // linked by hand
  const kept = linked !== undefined && within(CLUSTERS_DIR) && existsSync(dirname(linked));
  const folder = kept ? dirname(linked) : join(CLUSTERS_DIR, randomBytes(8).toString('hex'));
  const real = join(folder, 'pg');
  for (const dir of [ROOT_FALLBACK_DIR, CLUSTERS_DIR, folder]) await rootOwnedDir(dir);
  if (!kept) {
    if (initialised && within(LEGACY_FALLBACK_DIR)) await moveLegacyCluster(linked, real, log);
    await rm(clusterDir, { force: true });
    await symlink(real, clusterDir);
  }
  await twinLink(clusterDir, join(folder, DATA_DIR_LINK_TWIN), log);
  // Written last: a clean-up elsewhere that finds it finds the link too, so never takes it for an orphan.
  const dataDir = dirname(clusterDir);
  writeFileSync(join(folder, OWNER_DATA_DIR_FILE), `${dataDir}\n`, { mode: 0o644 });
  log(`the postgres user cannot reach ${dataDir}: the cluster lives in ${real}, linked from ${clusterDir}`);
  return real;
}
