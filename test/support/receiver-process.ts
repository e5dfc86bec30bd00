import { ChildProcess, spawn } from 'node:child_process';
import type { KeyAndCert } from './test-ca';

/**
 * Runs in the child: node:https answering 200 at once, stamping each request with a high-resolution
 * clock (epoch ms, sub-millisecond) as soon as its headers are parsed, before its body is read.
 * Asked over IPC for the stamps so far.
 */
const SCRIPT = `
const { createServer } = require('node:https');
const arrivals = [];
const server = createServer({ key: process.env.RECEIVER_KEY, cert: process.env.RECEIVER_CERT, keepAliveTimeout: 5000 });
server.on('request', (req, res) => {
  arrivals.push(performance.timeOrigin + performance.now());
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'text/plain' });
    res.end('ok');
  });
});
process.on('message', (m) => { if (m === 'arrivals') process.send({ arrivals }); });
process.on('disconnect', () => process.exit(0));
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
`;

/**
 * A real HTTPS receiver in a process of its own: its arrival times are not bunched by event-loop
 * delays of the busy jest process (which runs a service instance too), so they measure when each
 * request reached the receiver.
 */
export class ReceiverProcess {
  private constructor(
    private readonly child: ChildProcess,
    readonly port: number,
  ) {}

  static async start(tls: KeyAndCert): Promise<ReceiverProcess> {
    const child = spawn(process.execPath, ['-e', SCRIPT], {
      env: { ...process.env, RECEIVER_KEY: tls.key, RECEIVER_CERT: tls.cert },
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
    });
    let stderr = '';
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    const port = await new Promise<number>((resolve, reject) => {
      child.once('message', (m: { port: number }) => resolve(m.port));
      child.once('exit', (code) => reject(new Error(`receiver process exited (${code}): ${stderr}`)));
    });
    return new ReceiverProcess(child, port);
  }

  url(path = '/hook'): string {
    return `https://127.0.0.1:${this.port}${path}`;
  }

  /** When each request so far arrived (epoch ms, sub-millisecond), in arrival order. */
  arrivals(): Promise<number[]> {
    return new Promise((resolve) => {
      const onMessage = (m: { arrivals?: number[] }) => {
        if (!m.arrivals) return;
        this.child.off('message', onMessage);
        resolve(m.arrivals);
      };
      this.child.on('message', onMessage);
      this.child.send('arrivals');
    });
  }

  /** Resolves with the arrival times once `count` requests have arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<number[]> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const arrivals = await this.arrivals();
      if (arrivals.length >= count) return arrivals;
      if (Date.now() > deadline)
        throw new Error(`receiver got ${arrivals.length} requests, expected ${count} within ${timeoutMs} ms`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((r) => this.child.once('exit', r));
    this.child.kill('SIGTERM');
    await exited;
  }
}
