import type { IncomingHttpHeaders, IncomingMessage, ServerResponse } from 'node:http';
import { createServer, Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { KeyAndCert } from './test-ca';

/** One request as the receiver saw it. */
export interface Receipt {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  /** The raw body text, byte for byte. */
  raw: string;
  /** The body's bytes as received (`raw` is their UTF-8 decoding). */
  bytes: Buffer;
  body: Record<string, any>;
  receivedAt: number;
  /** The client's port: the same for requests over one kept-alive connection. */
  remotePort: number | undefined;
}

/**
 * What to answer: a status (after an optional delay), `hang` (never answer), or a custom handler.
 * Receipts are recorded when the request body has arrived, before answering.
 */
export type Behaviour =
  | { status: number; delayMs?: number; headers?: Record<string, string>; body?: string }
  | { hang: true }
  | ((req: IncomingMessage, res: ServerResponse, receipt: Receipt) => void);

/** A real local HTTPS receiver (node:https) for deliveries. */
export class Receiver {
  readonly receipts: Receipt[] = [];
  /** Requests received and not yet answered or abandoned, and the most there were at once. */
  open = 0;
  maxOpen = 0;
  private waiters: Array<() => void> = [];

  private constructor(
    private readonly server: Server,
    public behaviour: Behaviour,
  ) {}

  static async start(tls: KeyAndCert, behaviour: Behaviour = { status: 200 }): Promise<Receiver> {
    const server = createServer({ key: tls.key, cert: tls.cert, keepAliveTimeout: 5000 });
    const receiver = new Receiver(server, behaviour);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => receiver.handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return receiver;
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port;
  }

  /** https://127.0.0.1:<port><path>, or with `localhost` as the host. */
  url(path = '/hook', host: '127.0.0.1' | 'localhost' = '127.0.0.1'): string {
    return `https://${host}:${this.port}${path}`;
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    this.open++;
    this.maxOpen = Math.max(this.maxOpen, this.open);
    res.once('close', () => this.open--); // answered, or the client gave up
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const bytes = Buffer.concat(chunks);
      const raw = bytes.toString('utf8');
      let body: Record<string, any>;
      try {
        body = JSON.parse(raw);
      } catch {
        body = {};
      }
      const receipt: Receipt = {
        method: req.method ?? '',
        path: req.url ?? '',
        headers: req.headers,
        raw,
        bytes,
        body,
        receivedAt: Date.now(),
        remotePort: req.socket.remotePort,
      };
      this.receipts.push(receipt);
      for (const wake of this.waiters.splice(0)) wake();
      const behaviour = this.behaviour;
      if (typeof behaviour === 'function') return behaviour(req, res, receipt);
      if ('hang' in behaviour) return; // never answers; closed by close()
      const answer = () => {
        res.writeHead(behaviour.status, behaviour.headers ?? { 'content-type': 'text/plain' });
        res.end(behaviour.body ?? 'ok');
      };
      if (behaviour.delayMs) setTimeout(answer, behaviour.delayMs);
      else answer();
    });
  }

  /** Resolves once `count` receipts have arrived; rejects after `timeoutMs`. */
  async waitFor(count: number, timeoutMs = 10_000): Promise<Receipt[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.receipts.length < count) {
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `receiver got ${this.receipts.length} requests, expected ${count} within ${timeoutMs} ms`,
        );
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
    return this.receipts.slice(0, count);
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
