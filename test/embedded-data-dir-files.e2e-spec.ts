import { lstat, mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { buildService, ServiceProcess } from './support/service-process';

interface Entry {
  path: string;
  kind: 'file' | 'folder';
  mode: string;
}

const octal = (mode: number) => (mode & 0o777).toString(8).padStart(4, '0');

/**
 * Every file and folder under `dataDir`, not following links. Left out: `pg`, the embedded cluster
 * (PostgreSQL sets the modes of its own files, and as root it is a link to a folder outside
 * DATA_DIR, whose mode Linux always reports as 0777).
 */
async function walk(dataDir: string, relative = ''): Promise<Entry[]> {
  const entries: Entry[] = [];
  for (const name of await readdir(join(dataDir, relative))) {
    const path = join(relative, name);
    if (path === 'pg') continue;
    const info = await lstat(join(dataDir, path));
    if (info.isDirectory()) {
      entries.push({ path, kind: 'folder', mode: octal(info.mode) }, ...(await walk(dataDir, path)));
    } else {
      entries.push({ path, kind: 'file', mode: octal(info.mode) });
    }
  }
  return entries;
}

/** What the contract allows (section 8, Bulkheads: Files): folders 0700, files 0600. */
const expectOwnerOnly = async (dataDir: string) => {
  const entries = [
    { path: '.', kind: 'folder', mode: octal((await stat(dataDir)).mode) },
    ...(await walk(dataDir)),
  ];
  expect(entries.map((e) => e.path)).toEqual(
    expect.arrayContaining(['jwt-secret', 'secrets-key', 'pg-password', 'pg-owner', 'postgres.log']),
  );
  expect(entries).toEqual(entries.map((e) => ({ ...e, mode: e.kind === 'folder' ? '0700' : '0600' })));
};

describe('DATA_DIR is owner-only (contract section 8, Bulkheads and budgets: Files)', () => {
  let main: string;
  let removeBuild: () => Promise<void>;
  const folders: string[] = [];
  const services: ServiceProcess[] = [];
  let umask: number;

  beforeAll(async () => {
    ({ main, remove: removeBuild } = await buildService());
    // The service sets every mode itself: a permissive umask, inherited by its process, changes nothing.
    umask = process.umask(0);
  }, 180_000);
  afterAll(async () => {
    process.umask(umask);
    for (const service of services) await service.stop('SIGKILL');
    for (const folder of folders) await rm(folder, { recursive: true, force: true });
    await removeBuild?.();
  }, 60_000);

  const parentFolder = async () => {
    const parent = await mkdtemp(join(tmpdir(), 'pis-data-dir-'));
    folders.push(parent);
    return parent;
  };

  /** Starts the service on `dataDir` with generated secrets, then stops it; both leave files. */
  const runService = async (dataDir: string) => {
    const service = await ServiceProcess.start(main, { DATA_DIR: dataDir });
    services.push(service);
    await expectOwnerOnly(dataDir);
    await expect(service.stop('SIGTERM')).resolves.toBe(0);
  };

  it('creates a missing DATA_DIR 0700, and writes every file in it 0600', async () => {
    const dataDir = join(await parentFolder(), 'fresh');
    await runService(dataDir);
    await expectOwnerOnly(dataDir);
  }, 180_000);

  it('keeps a 0700 DATA_DIR 0700, across a restart', async () => {
    const dataDir = await parentFolder();
    await runService(dataDir);
    await runService(dataDir);
    await expectOwnerOnly(dataDir);
  }, 240_000);
});
