import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { RUN_PREFIX_ENV } from './database';

const ROOT = resolve(__dirname, '../..');

/** The folder of this test run's build of the service (global teardown removes it). */
export const runBuildDir = (runPrefix: string) => join(ROOT, 'dist', `e2e-build-${runPrefix}`);

/**
 * The service compiled as production runs it (tsconfig.build.json), once per test run: the first
 * file that asks compiles it into a folder of its own under dist/ and renames that into
 * runBuildDir, later files reuse it (a build by someone else in the same tree is neither disturbed
 * nor picked up half-written; of two workers compiling at once, the second's rename fails and its
 * copy goes). Outside a test run (no run prefix) every call compiles its own, removed by `remove`.
 */
export async function buildService(): Promise<{ main: string; remove: () => Promise<void> }> {
  const runPrefix = process.env[RUN_PREFIX_ENV];
  const shared = runPrefix ? runBuildDir(runPrefix) : undefined;
  const keep = async () => {};
  const sharedMain = shared && join(shared, 'src/main.js');
  if (sharedMain && existsSync(sharedMain)) return { main: sharedMain, remove: keep };
  const outDir = join(ROOT, 'dist', `e2e-build-${process.pid}-${randomBytes(3).toString('hex')}`);
  const remove = () => rm(outDir, { recursive: true, force: true });
  await compileService(outDir);
  if (!shared || !sharedMain) return { main: join(outDir, 'src/main.js'), remove };
  await rename(outDir, shared).catch(async (error: unknown) => {
    await remove();
    if (!existsSync(sharedMain)) throw error; // not another worker's build in place: a real failure
  });
  return { main: sharedMain, remove: keep };
}

async function compileService(outDir: string): Promise<void> {
  const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
  try {
    await promisify(execFile)(
      process.execPath,
      [
        tsc,
        '-p',
        'tsconfig.build.json',
        '--outDir',
        outDir,
        '--tsBuildInfoFile',
        join(outDir, '.tsbuildinfo'),
      ],
      { cwd: ROOT, maxBuffer: 16 * 1024 * 1024 },
    );
  } catch (error) {
    // Type errors still emit JavaScript; only a missing entry point stops the test.
    const out = (error as { stdout?: string }).stdout ?? String(error);
    if (!existsSync(join(outDir, 'src/main.js'))) throw new Error(`build failed: ${out}`, { cause: error });
    console.warn(`build reported errors (continuing with the emitted JavaScript):\n${out.slice(0, 2000)}`);
  }
}

export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  await new Promise<void>((r) => server.close(() => r()));
  return port;
}

/** The service as a child process (`node dist/src/main.js`), as in production. */
export class ServiceProcess {
  output = '';
  private exitCode: Promise<number | null>;

  private constructor(
    readonly child: ChildProcess,
    readonly url: string,
    readonly dataDir: string,
  ) {
    child.stdout?.on('data', (d: Buffer) => (this.output += d.toString()));
    child.stderr?.on('data', (d: Buffer) => (this.output += d.toString()));
    this.exitCode = new Promise((r) => child.once('exit', (code) => r(code)));
  }

  static async start(main: string, env: Record<string, string>): Promise<ServiceProcess> {
    const port = await freePort();
    const dataDir = await mkdtemp(join(tmpdir(), 'pis-child-'));
    const child = spawn(process.execPath, [main], {
      cwd: ROOT,
      env: {
        PATH: process.env.PATH ?? '',
        HOME: process.env.HOME ?? tmpdir(),
        NODE_ENV: 'test',
        HOST: '127.0.0.1',
        PORT: String(port),
        DATA_DIR: dataDir,
        LOG_LEVEL: 'warn',
        ...env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const service = new ServiceProcess(child, `http://127.0.0.1:${port}`, dataDir);
    await service.waitReady();
    return service;
  }

  private async waitReady(timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if (this.child.exitCode !== null) throw new Error(`service exited during start-up:\n${this.output}`);
      try {
        const res = await fetch(`${this.url}/health/ready`);
        if (res.status === 200) return;
      } catch {
        // not listening yet
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`service not ready after ${timeoutMs} ms:\n${this.output}`);
  }

  /** Sends the signal and resolves with the exit code (null when killed by the signal). */
  async stop(signal: NodeJS.Signals): Promise<number | null> {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
    const code = await this.exitCode;
    await rm(this.dataDir, { recursive: true, force: true });
    return code;
  }
}
