import { spawn } from 'node:child_process';
import { closeSync, readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import pg from 'pg';
import { openOwnerOnlyFile } from '../../config/owner-only-files';
import type { Binaries, PostgresUser } from './binaries';
import { stopServer } from './postmaster';

export interface Launch {
  bins: Binaries;
  clusterDir: string;
  port: number;
  /** The folder of the server's Unix socket; none: TCP on 127.0.0.1 only. */
  socketDir: string | undefined;
  user: PostgresUser;
  logFile: string;
  /** The maintenance database's URL, to know when the server accepts connections. */
  url: string;
}

/** A start after a crash may first meet the dead server's last backends (shared memory in use). */
export const RELAUNCH_MS = 30_000;

export async function freePort(): Promise<number> {
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

function serverArguments(options: Launch): string[] {
  return [
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
  ];
}

/** Spawns the postmaster, its output appended to the log; `state.exited` turns true when it ends. */
function spawnPostmaster(options: Launch) {
  const logFd = openOwnerOnlyFile(options.logFile, 'a');
  // detached: its own process group, so a terminal's Ctrl-C reaches only this process, which then
  // shuts down in order (HTTP, deliveries, pool) and stops PostgreSQL last.
  const child = spawn(options.bins.postgres, serverArguments(options), {
    ...(options.user ?? {}),
    detached: true,
    stdio: ['ignore', logFd, logFd],
    env: { ...process.env, LC_MESSAGES: 'C' },
  });
  closeSync(logFd);
  const state = { exited: false };
  child.on('exit', () => (state.exited = true));
  child.on('error', () => (state.exited = true));
  child.unref();
  return { child, state };
}

/**
 * Starts the postmaster and resolves with its pid once it accepts connections. With `retryMs`, a
 * server that exits during start-up is started again until that much time has passed.
 */
export async function launch(options: Launch, retryMs = 0): Promise<number> {
  const deadline = Date.now() + retryMs;
  for (;;) {
    const { child, state } = spawnPostmaster(options);
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
