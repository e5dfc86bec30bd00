import { ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import request from 'supertest';
import { buildService, freePort } from './service-process';

/**
 * The built service and its command-line tools as child processes, as `npm start` and
 * `npm run cli` run them, with nothing of the test run's own environment (the lifecycle and CLI
 * specs). A service runs on the embedded PostgreSQL of its DATA_DIR unless DATABASE_URL is given.
 */
const ROOT = resolve(__dirname, '../..');
const READY_WITHIN_MS = 30_000;
export const EXIT_WITHIN_MS = 30_000;

/** This test run's build (buildService): the service, its CLI, and the TypeORM CLI's DataSource. */
export interface BuiltService {
  main: string;
  cli: string;
  ormconfig: string;
}

export async function builtService(): Promise<BuiltService> {
  const { main } = await buildService();
  const src = dirname(main);
  const built = { main, cli: join(src, 'cli.js'), ormconfig: join(src, '..', 'ormconfig.js') };
  for (const file of Object.values(built)) if (!existsSync(file)) throw new Error(`not built: ${file}`);
  return built;
}

/** The TypeORM CLI, which `npm run migration:run` runs after its build. */
export const TYPEORM_CLI = join(ROOT, 'node_modules/typeorm/cli.js');

/** Only what the service needs: nothing of this test run's own environment leaks in. */
export function baseEnv(extra: Record<string, string>): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    HOME: process.env.HOME ?? tmpdir(),
    LOG_LEVEL: 'info',
    ...extra,
  };
}

export interface Exit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface Running {
  child: ChildProcess;
  port: number;
  url: string;
  stdout: () => string;
  stderr: () => string;
  exit: Promise<Exit>;
}

export function spawnNode(script: string, args: string[], env: Record<string, string>) {
  const child = spawn(process.execPath, [script, ...args], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
  child.stderr!.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
  const exit = new Promise<Exit>((done) => child.on('exit', (code, signal) => done({ code, signal })));
  return { child, stdout: () => stdout, stderr: () => stderr, exit };
}

/** Starts the service `main` and waits for /health/ready (at most 30 s). */
export async function startService(main: string, env: Record<string, string>): Promise<Running> {
  const port = await freePort();
  const proc = spawnNode(main, [], baseEnv({ PORT: String(port), HOST: '127.0.0.1', ...env }));
  const url = `http://127.0.0.1:${port}`;
  const started = Date.now();
  let exited: Exit | undefined;
  void proc.exit.then((e) => (exited = e));
  for (;;) {
    if (exited) {
      throw new Error(
        `service exited (${JSON.stringify(exited)}) before ready: ${proc.stderr()} ${proc.stdout().slice(-2000)}`,
      );
    }
    const ok = await fetch(`${url}/health/ready`)
      .then((r) => r.status === 200)
      .catch(() => false);
    if (ok) break;
    if (Date.now() - started > READY_WITHIN_MS) {
      proc.child.kill('SIGKILL');
      throw new Error(
        `not ready within ${READY_WITHIN_MS} ms: ${proc.stderr()} ${proc.stdout().slice(-2000)}`,
      );
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return { ...proc, port, url };
}

export async function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: not within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([promise, timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** Signals the service and waits for it to exit. */
export async function stop(service: Running, signal: NodeJS.Signals): Promise<Exit> {
  service.child.kill(signal);
  return within(service.exit, EXIT_WITHIN_MS, `exit after ${signal}`);
}

/** The cluster's real folder: run as root, `<DATA_DIR>/pg` links to one only root may enter. */
export function clusterOf(dataDir: string): string {
  const link = join(dataDir, 'pg');
  return existsSync(link) ? realpathSync(link) : link;
}

/** PostgreSQL processes running on `<dataDir>/pg`, from /proc. */
export function postgresOn(dataDir: string): number[] {
  const cluster = clusterOf(dataDir);
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0');
      if (argv.some((a) => a.endsWith('postgres')) && argv.includes(cluster)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Every stdout line is one JSON object (contract section 1, Logs). */
export function expectJsonLines(text: string): Array<Record<string, unknown>> {
  const lines = text.split('\n').filter((l) => l.length > 0);
  expect(lines.length).toBeGreaterThan(0);
  return lines.map((line) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      throw new Error(`not a JSON line: ${line}`);
    }
    expect(typeof parsed).toBe('object');
    return parsed as Record<string, unknown>;
  });
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built CLI `cli` (BuiltService) with `args`, in an environment of only `env`. */
export async function runCli(cli: string, args: string[], env: Record<string, string>): Promise<CliResult> {
  const proc = spawnNode(cli, args, baseEnv(env));
  const exit = await within(proc.exit, 90_000, `cli ${args[0]}`);
  return { code: exit.code, stdout: proc.stdout(), stderr: proc.stderr() };
}

export const cliUser = (email: string, extra: string[] = []) => [
  'users:create',
  '--email',
  email,
  '--password',
  'cli-password-1',
  '--role',
  'ROLE_PARTNER',
  '--tenant',
  'cli',
  '--partner-id',
  '9',
  '--partner-name',
  'Cli Partner',
  ...extra,
];

/** What `/auth/me` says of a user made by `cliUser`, after its login over `http`. */
export async function meOfCliUser(
  http: () => ReturnType<typeof request>,
  email: string,
): Promise<Record<string, unknown>> {
  const login = await http().post('/auth/login').send({ email, password: 'cli-password-1' }).expect(200);
  const me = await http().get('/auth/me').set('authorization', `Bearer ${login.body.token}`).expect(200);
  return me.body as Record<string, unknown>;
}

/** What a command-line tool prints on stderr when it generates the secrets in a fresh DATA_DIR. */
export const generatedSecretWarnings = (dataDir: string) =>
  [
    ['JWT_SECRET', 'jwt-secret'],
    ['SECRETS_KEY', 'secrets-key'],
  ]
    .map(
      ([name, file]) =>
        `warning: ${name} is not set: generated one and stored it in ${join(dataDir, file)}; set ${name} in production\n`,
    )
    .join('');

/** The generated secrets' values, which no output may contain. */
export const storedSecrets = (dataDir: string) =>
  ['jwt-secret', 'secrets-key'].map((file) => readFileSync(join(dataDir, file), 'utf8').trim());

export const oneLine = (text: string) => {
  expect(text.endsWith('\n')).toBe(true);
  expect(text.trimEnd().split('\n')).toHaveLength(1);
  return text.trim();
};
