import { Agent, request } from 'node:http';

export interface SweepRequest {
  method: string;
  /** Path and query as sent, byte for byte (already percent-encoded where it must be). */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface SweepResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  bytes: Buffer;
  text: string;
}

/** Long enough for a loaded 2-core machine; a request past it is a hang, reported as a failure. */
const ANSWER_TIMEOUT_MS = 20_000;

/**
 * A client that sends exactly what it is given: node:http with the path as written (supertest and
 * fetch would normalise or refuse odd paths, media types and bodies). One keep-alive agent.
 */
export class SweepClient {
  private readonly agent = new Agent({ keepAlive: true, maxSockets: 4 });
  /** Requests sent so far. */
  sent = 0;

  constructor(private readonly baseUrl: string) {}

  send(req: SweepRequest): Promise<SweepResponse> {
    const { hostname, port } = new URL(this.baseUrl);
    this.sent++;
    const body = req.body === undefined ? undefined : Buffer.from(req.body);
    const headers = { ...req.headers, ...(body ? { 'content-length': String(body.length) } : {}) };
    return new Promise((resolve, reject) => {
      const outgoing = request(
        { host: hostname, port, method: req.method, path: req.path, headers, agent: this.agent },
        (res) => {
          const chunks: Buffer[] = [];
          res.on('data', (chunk: Buffer) => chunks.push(chunk));
          res.on('error', reject);
          res.on('end', () => {
            const bytes = Buffer.concat(chunks);
            resolve({
              status: res.statusCode ?? 0,
              headers: res.headers,
              bytes,
              text: bytes.toString('utf8'),
            });
          });
        },
      );
      outgoing.on('error', reject);
      outgoing.setTimeout(ANSWER_TIMEOUT_MS, () =>
        outgoing.destroy(new Error(`no answer within ${ANSWER_TIMEOUT_MS} ms`)),
      );
      outgoing.end(body);
    });
  }

  close(): void {
    this.agent.destroy();
  }
}

/** Polls a URL in the background and keeps what each poll answered (status, or the error). */
export class HealthSampler {
  readonly samples: Array<{ status: number | string; ms: number }> = [];
  private timer?: NodeJS.Timeout;
  private inFlight?: Promise<void>;
  private stopped = false;
  private readonly client: SweepClient;

  constructor(
    baseUrl: string,
    private readonly path: string,
  ) {
    this.client = new SweepClient(baseUrl);
  }

  start(intervalMs: number): void {
    const poll = async () => {
      const started = Date.now();
      const status = await this.client
        .send({ method: 'GET', path: this.path })
        .then((res) => res.status)
        .catch((error: Error) => error.message);
      this.samples.push({ status, ms: Date.now() - started });
      if (!this.stopped) this.timer = setTimeout(() => (this.inFlight = poll()), intervalMs);
    };
    this.timer = setTimeout(() => (this.inFlight = poll()), intervalMs);
  }

  /** Stops polling once the poll under way has answered. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    await this.inFlight;
    this.client.close();
  }
}
