import { existsSync, readFileSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';

export function isAlive(pid: number): boolean {
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
export function isPostmasterOf(pid: number, clusterDir: string): boolean {
  let argv: string[];
  try {
    argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
  } catch (error) {
    // No /proc (macOS): trust the liveness check.
    return (error as NodeJS.ErrnoException).code === 'ENOENT' && !existsSync('/proc/self') && isAlive(pid);
  }
  return /(^|\/)postgres$/.test(argv[0] ?? '') && argv.includes(clusterDir);
}

/** Whether `pid` is alive and the postmaster of `clusterDir`. */
export const isRunningPostmasterOf = (pid: number, clusterDir: string): boolean =>
  pid > 0 && isAlive(pid) && isPostmasterOf(pid, clusterDir);

export async function stopServer(pid: number): Promise<void> {
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

const pidIn = async (pidFile: string) =>
  Number((await readFile(pidFile, 'utf8').catch(() => '')).split('\n')[0]);

/** Stops a postmaster still running on `clusterDir`, if any (the pid in its postmaster.pid). */
export async function stopPostmasterOf(clusterDir: string): Promise<void> {
  const pid = await pidIn(join(clusterDir, 'postmaster.pid'));
  if (isRunningPostmasterOf(pid, clusterDir)) await stopServer(pid);
}

/** A postmaster.pid whose process is gone, or is not this cluster's postmaster, is removed. */
export async function removeStalePidFile(pidFile: string, clusterDir: string): Promise<void> {
  if (!isRunningPostmasterOf(await pidIn(pidFile), clusterDir)) await rm(pidFile, { force: true });
}

/** What postmaster.pid says of the server running on `clusterDir`, if one does. */
export function runningPostmaster(
  clusterDir: string,
): { pid: number; port: number; socketDir: string | undefined } | undefined {
  const pidFile = join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  // postmaster.pid: pid, data folder, start time, port, socket folder (empty: none), …
  const [pidLine, , , portLine, socketLine] = readFileSync(pidFile, 'utf8').split('\n');
  const pid = Number(pidLine);
  if (!isRunningPostmasterOf(pid, clusterDir)) return undefined;
  return { pid, port: Number(portLine), socketDir: socketLine || undefined };
}
