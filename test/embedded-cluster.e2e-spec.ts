import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { lstat, mkdtemp, readFile, readlink, rename, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { removeOrphanClusters, ROOT_FALLBACK_DIR } from '../src/database/embedded';
import { buildService, ServiceProcess } from './support/service-process';

const env = (extra: Record<string, string> = {}) => ({
  JWT_SECRET: randomBytes(32).toString('base64url'),
  SECRETS_KEY: randomBytes(32).toString('base64'),
  ...extra,
});

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

// Only root runs PostgreSQL as another user, who then cannot reach a DATA_DIR under a 0700 folder.
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

asRoot('Embedded cluster of a DATA_DIR the postgres user cannot reach (run as root)', () => {
  let main: string;
  let removeBuild: () => Promise<void>;
  const services: ServiceProcess[] = [];
  const folders: string[] = [];

  beforeAll(async () => {
    ({ main, remove: removeBuild } = await buildService());
  }, 180_000);
  afterAll(async () => {
    for (const s of services) await s.stop('SIGKILL');
    for (const f of folders) await rm(f, { recursive: true, force: true });
    await removeBuild?.();
  }, 60_000);

  /** A DATA_DIR under a fresh 0700 folder (as mkdtemp makes them). */
  const hiddenDataDir = async () => {
    const parent = await mkdtemp(join(tmpdir(), 'pis-0700-'));
    folders.push(parent);
    expect((await stat(parent)).mode & 0o777).toBe(0o700);
    return { parent, dataDir: join(parent, 'data') };
  };
  const start = async (extra: Record<string, string> = {}) => {
    const service = await ServiceProcess.start(main, env(extra));
    services.push(service);
    return service;
  };

  it('keeps the cluster in a root-only persistent folder, and removes it at the next start once DATA_DIR is gone', async () => {
    const { parent, dataDir } = await hiddenDataDir();
    const first = await start({ DATA_DIR: dataDir });

    const link = join(dataDir, 'pg');
    expect((await lstat(link)).isSymbolicLink()).toBe(true);
    const cluster = await readlink(link);
    const folder = dirname(cluster);
    expect(dirname(folder)).toBe(join(ROOT_FALLBACK_DIR, 'clusters'));
    for (const dir of [ROOT_FALLBACK_DIR, dirname(folder), folder]) {
      const info = await stat(dir);
      expect({ dir, uid: info.uid, mode: info.mode & 0o777 }).toEqual({ dir, uid: 0, mode: 0o755 });
    }
    const postgresUid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const clusterInfo = await stat(cluster);
    expect({ uid: clusterInfo.uid, mode: clusterInfo.mode & 0o777 }).toEqual({
      uid: postgresUid,
      mode: 0o700,
    });
    expect(existsSync(join(cluster, 'PG_VERSION'))).toBe(true);
    expect((await readFile(join(folder, 'data-dir'), 'utf8')).trim()).toBe(dataDir);
    // A hard link to <DATA_DIR>/pg itself: two names while the DATA_DIR exists under any name.
    expect((await lstat(join(folder, 'data-dir-link'))).nlink).toBe(2);

    await expect(first.stop('SIGTERM')).resolves.toBe(0);
    await rm(parent, { recursive: true, force: true });
    expect(existsSync(folder)).toBe(true); // until some service starts

    const next = await start();
    expect(existsSync(folder)).toBe(false);
    await expect(next.stop('SIGTERM')).resolves.toBe(0);
  }, 180_000);

  it("keeps a renamed DATA_DIR's cluster through other starts, and gives a new DATA_DIR at the old path a cluster of its own", async () => {
    const { parent, dataDir } = await hiddenDataDir();
    const first = await start({ DATA_DIR: dataDir });
    const cluster = await readlink(join(dataDir, 'pg'));
    await writeFile(join(cluster, 'marker-of-this-test'), 'kept');
    await expect(first.stop('SIGTERM')).resolves.toBe(0);

    const renamed = join(parent, 'renamed');
    await rename(dataDir, renamed);
    await removeOrphanClusters(); // what any other service's start runs before this one starts again
    expect(await readFile(join(cluster, 'marker-of-this-test'), 'utf8')).toBe('kept');

    const atOldPath = await start({ DATA_DIR: dataDir });
    const itsCluster = await readlink(join(dataDir, 'pg'));
    expect(dirname(itsCluster)).not.toBe(dirname(cluster));
    expect(existsSync(join(itsCluster, 'marker-of-this-test'))).toBe(false);
    await expect(atOldPath.stop('SIGTERM')).resolves.toBe(0);

    const second = await start({ DATA_DIR: renamed });
    expect(await readlink(join(renamed, 'pg'))).toBe(cluster);
    expect(await readFile(join(cluster, 'marker-of-this-test'), 'utf8')).toBe('kept');
    expect((await readFile(join(dirname(cluster), 'data-dir'), 'utf8')).trim()).toBe(renamed);
    await expect(second.stop('SIGTERM')).resolves.toBe(0);
  }, 180_000);

  it("leaves nothing behind after a killed service's DATA_DIR is deleted: the suite's clean-up removes its cluster and stops its server", async () => {
    const { parent, dataDir } = await hiddenDataDir();
    const service = await start({ DATA_DIR: dataDir });
    const cluster = await readlink(join(dataDir, 'pg'));
    const postmaster = Number(readFileSync(join(cluster, 'postmaster.pid'), 'utf8').split('\n')[0]);
    expect(isAlive(postmaster)).toBe(true);

    await service.stop('SIGKILL'); // its PostgreSQL keeps running, with no owner
    expect(isAlive(postmaster)).toBe(true);
    await rm(parent, { recursive: true, force: true });

    // What test/support/global-teardown.ts runs after every suite.
    await removeOrphanClusters();
    expect(existsSync(dirname(cluster))).toBe(false);
    expect(isAlive(postmaster)).toBe(false);
  }, 180_000);
});
