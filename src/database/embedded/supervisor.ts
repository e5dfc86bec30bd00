import { isAlive, isPostmasterOf, stopServer } from './postmaster';

/** Restarts of a PostgreSQL that died (contract section 8): at most this many in the window. */
const MAX_RESTARTS = 5;
const RESTART_WINDOW_MS = 10 * 60_000;
/** How often the supervisor looks whether the postmaster is still there. */
const WATCH_INTERVAL_MS = 250;

/**
 * Watches an owned postmaster and starts it again when it dies (contract section 8: within 5 s, up
 * to 5 times in 10 minutes); past that, or when it cannot be started, `giveUp` is told, and the
 * service exits non-zero so that its own supervisor takes over.
 */
export class Supervisor {
  private state: 'watching' | 'restarting' | 'stopping' | 'gave-up' = 'watching';
  /** When each restart in the window happened. */
  private readonly restarts: number[] = [];
  private restarting: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private pid: number,
    private readonly clusterDir: string,
    private readonly relaunch: () => Promise<number>,
    private readonly log: (message: string) => void,
    private readonly giveUp: (reason: string) => void,
  ) {
    this.timer = setInterval(() => this.check(), WATCH_INTERVAL_MS);
    this.timer.unref();
  }

  private check(): void {
    if (this.state !== 'watching') return;
    if (isAlive(this.pid) && isPostmasterOf(this.pid, this.clusterDir)) return;
    const now = Date.now();
    while (this.restarts.length > 0 && this.restarts[0] <= now - RESTART_WINDOW_MS) this.restarts.shift();
    if (this.restarts.length >= MAX_RESTARTS) {
      this.fail(`embedded PostgreSQL died again after ${MAX_RESTARTS} restarts in 10 minutes`);
      return;
    }
    this.restarts.push(now);
    this.state = 'restarting';
    this.log(`embedded PostgreSQL (pid ${this.pid}) died: starting it again`);
    this.restarting = this.relaunch().then(
      async (pid) => {
        this.pid = pid;
        if (this.state === 'stopping') return; // stop() stops the new one
        this.state = 'watching';
        this.log(`embedded PostgreSQL started again (pid ${pid})`);
      },
      (error: unknown) => {
        if (this.state === 'restarting')
          this.fail(`embedded PostgreSQL could not be started again: ${String(error)}`);
      },
    );
  }

  private fail(reason: string): void {
    this.state = 'gave-up';
    clearInterval(this.timer);
    this.giveUp(reason);
  }

  async stop(): Promise<void> {
    this.state = 'stopping';
    clearInterval(this.timer);
    await this.restarting;
    await stopServer(this.pid);
  }
}
