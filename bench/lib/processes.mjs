/* global process, setTimeout, clearTimeout */
// Every child process and temporary folder of a bench run is registered here, so one cleanup
// (normal end, an error, Ctrl-C, SIGTERM from CI) stops each child by its pid and removes each folder.
import { fork, spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const children = new Map(); // pid -> { child, name, stop }
const tempDirs = new Set();
const cleanups = [];

export function makeTempDir(prefix) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  tempDirs.add(dir);
  return dir;
}

/** Runs before children are stopped (e.g. closing the bench's own database pool). */
export function onCleanup(fn) {
  cleanups.push(fn);
}

function exited(child) {
  return child.exitCode !== null || child.signalCode !== null;
}

/** Resolves when the child has exited (at once if it already has). */
export function waitForExit(child, timeoutMs) {
  if (exited(child)) return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      child.off('exit', onExit);
      resolve(false);
    }, timeoutMs);
    const onExit = () => {
      clearTimeout(timer);
      resolve(true);
    };
    child.once('exit', onExit);
  });
}

function register(child, name, graceMs) {
  const entry = { child, name, graceMs };
  children.set(child.pid, entry);
  child.once('exit', () => children.delete(child.pid));
  return child;
}

/** A node script in bench/ with an IPC channel; its stderr is passed through with a prefix. */
export function forkTracked(name, file, { env = process.env, execArgv = [], graceMs = 3000 } = {}) {
  const child = fork(file, [], { env, execArgv, stdio: ['ignore', 'ignore', 'pipe', 'ipc'] });
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text) => process.stderr.write(prefixLines(`[${name}] `, text)));
  child.on('error', () => undefined);
  return register(child, name, graceMs);
}

export function spawnTracked(name, command, args, options, graceMs = 20_000) {
  const child = spawn(command, args, options);
  child.on('error', () => undefined);
  return register(child, name, graceMs);
}

function prefixLines(prefix, text) {
  return text
    .split('\n')
    .map((line, i, all) => (i === all.length - 1 && line === '' ? '' : prefix + line))
    .join('\n');
}

/** SIGTERM, then SIGKILL after the grace period. */
export async function stopChild(child, graceMs = 3000) {
  if (!child || exited(child)) return;
  try {
    child.kill('SIGTERM');
  } catch {
    return;
  }
  if (await waitForExit(child, graceMs)) return;
  try {
    child.kill('SIGKILL');
  } catch {
    return;
  }
  await waitForExit(child, 2000);
}

function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return error.code === 'EPERM';
  }
}

/**
 * The service stops its embedded PostgreSQL on SIGTERM; if the service had to be killed, the server
 * it started (pid in postmaster.pid of its DATA_DIR) is stopped here by that pid.
 */
export async function stopOrphanedPostgres(dataDir) {
  const pidFile = join(dataDir, 'pg', 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number(readFileSync(pidFile, 'utf8').split('\n')[0]);
  const cmdline = (() => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
    } catch {
      return '';
    }
  })();
  if (!(pid > 0) || !isAlive(pid) || !cmdline.includes('postgres')) return;
  process.kill(pid, 'SIGINT');
  for (let i = 0; i < 400 && isAlive(pid); i++) await new Promise((r) => setTimeout(r, 25));
  if (isAlive(pid)) process.kill(pid, 'SIGQUIT');
}

let cleaning;

/** Idempotent: stops every registered child (by pid), then removes every temporary folder. */
export function cleanupAll() {
  cleaning ??= (async () => {
    for (const fn of cleanups.splice(0)) {
      try {
        await fn();
      } catch {
        // best effort: the remaining steps still run
      }
    }
    // Load-side children first (they hold connections to the service and the database).
    const entries = [...children.values()].sort((a, b) => a.graceMs - b.graceMs);
    for (const entry of entries) await stopChild(entry.child, entry.graceMs);
    for (const dir of tempDirs) {
      await stopOrphanedPostgres(dir).catch(() => undefined);
      rmSync(dir, { recursive: true, force: true });
    }
    tempDirs.clear();
  })();
  return cleaning;
}

/** Ctrl-C, SIGTERM, an uncaught error: clean up, then exit non-zero. */
export function installExitHandlers() {
  const bail = (code, message) => {
    if (message) process.stderr.write(`${message}\n`);
    void cleanupAll().finally(() => process.exit(code));
  };
  process.on('SIGINT', () => bail(130, 'interrupted: cleaning up'));
  process.on('SIGTERM', () => bail(143, 'terminated: cleaning up'));
  process.on('uncaughtException', (error) => bail(1, `bench failed: ${error?.stack ?? error}`));
  process.on('unhandledRejection', (error) => bail(1, `bench failed: ${error?.stack ?? error}`));
}

let nextId = 0;

/** One request/answer over a forked child's IPC channel. */
export function ipcRequest(child, message, timeoutMs = 60_000) {
  const id = ++nextId;
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no answer to ${message.cmd} within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (reply) => {
      if (reply?.id !== id) return;
      cleanup();
      if (reply.error) reject(new Error(reply.error));
      else resolve(reply);
    };
    const onExit = (code, signal) => {
      cleanup();
      reject(new Error(`child exited (${signal ?? code}) before answering ${message.cmd}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
    child.send({ ...message, id });
  });
}

/** Waits for the first IPC message of a given type (a child saying it is ready). */
export function waitForMessage(child, type, timeoutMs = 30_000) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`no "${type}" message within ${timeoutMs} ms`));
    }, timeoutMs);
    const onMessage = (message) => {
      if (message?.type !== type) return;
      cleanup();
      resolve(message);
    };
    const onExit = (code, signal) => {
      cleanup();
      reject(new Error(`child exited (${signal ?? code}) before "${type}"`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.off('message', onMessage);
      child.off('exit', onExit);
    };
    child.on('message', onMessage);
    child.once('exit', onExit);
  });
}

/** Answers IPC requests in a child: handlers[cmd](message) → object merged into the reply. */
export function serveIpc(handlers) {
  process.on('message', (message) => {
    const handler = handlers[message?.cmd];
    if (!handler) {
      process.send?.({ id: message?.id, error: `unknown command ${message?.cmd}` });
      return;
    }
    Promise.resolve()
      .then(() => handler(message))
      .then(
        (result) => process.send?.({ ...result, id: message.id }),
        (error) => process.send?.({ id: message.id, error: String(error?.stack ?? error) }),
      );
  });
  // The bench going away (even by SIGKILL) closes the channel: do not outlive it.
  process.on('disconnect', () => process.exit(0));
}
