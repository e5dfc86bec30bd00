import type * as http from 'node:http';
import * as net from 'node:net';

export interface RawResponse {
  status: number;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body: string;
}

/** The first complete HTTP/1.1 response (with a Content-Length) in `text`, if there is one yet. */
export function parseRawResponse(text: string): RawResponse | undefined {
  const end = text.indexOf('\r\n\r\n');
  if (end < 0) return undefined;
  const [statusLine, ...lines] = text.slice(0, end).split('\r\n');
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  const length = Number(headers['content-length'] ?? 0);
  const body = Buffer.from(text.slice(end + 4), 'latin1');
  if (body.length < length) return undefined;
  return {
    status: Number(statusLine.split(' ')[1]),
    headers,
    body: body.subarray(0, length).toString('utf8'),
  };
}

/**
 * One TCP connection to the service, written to by hand (a slow or stalling client) and read
 * without an HTTP client in between: what the server sent, and how the connection ended.
 */
export class RawConnection {
  received = '';
  /** How the connection ended: 'close' (FIN) or the socket error's code (ECONNRESET: a reset). */
  readonly ended: Promise<string>;
  private readonly socket: net.Socket;
  private waiters: (() => void)[] = [];

  private constructor(socket: net.Socket) {
    this.socket = socket;
    socket.on('data', (chunk: Buffer) => {
      this.received += chunk.toString('latin1');
      this.notify();
    });
    this.ended = new Promise((resolve) => {
      let error: string | undefined;
      socket.on('error', (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
      socket.on('close', () => {
        resolve(error ?? 'close');
        this.notify();
      });
    });
  }

  /**
   * `uploading`: the client goes on writing after the server's FIN (as an uploading HTTP client
   * does) and ends its side only when told (end()); otherwise Node ends it on the server's FIN.
   */
  static open(url: string, options: { uploading?: boolean } = {}): Promise<RawConnection> {
    const { hostname, port } = new URL(url);
    return new Promise((resolve, reject) => {
      const socket = net.connect(
        { port: Number(port), host: hostname, allowHalfOpen: options.uploading ?? false },
        () => resolve(new RawConnection(socket)),
      );
      socket.once('error', reject);
    });
  }

  get closed(): boolean {
    return this.socket.destroyed;
  }

  /** Resolves once the data is handed to the kernel; a write on a connection gone is ignored. */
  write(data: string | Buffer): Promise<void> {
    return new Promise((resolve) => {
      if (this.socket.destroyed) return resolve();
      this.socket.write(data, () => resolve());
    });
  }

  /** The first response, or undefined when the connection ended without one. */
  async response(): Promise<RawResponse | undefined> {
    for (;;) {
      const parsed = parseRawResponse(this.received);
      if (parsed || this.socket.destroyed) return parsed;
      await new Promise<void>((resolve) => this.waiters.push(resolve));
    }
  }

  /** Ends the client's side of the connection (a FIN) after what was written. */
  end(): void {
    this.socket.end();
  }

  destroy(): void {
    this.socket.destroy();
  }

  private notify(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** The status, headers and UTF-8 text of an answer to `http.request`, once all of it has arrived. */
export function readAnswer(
  res: http.IncomingMessage,
): Promise<{ status: number; headers: http.IncomingHttpHeaders; text: string }> {
  return new Promise((resolve, reject) => {
    const parts: Buffer[] = [];
    res.on('data', (c: Buffer) => parts.push(c));
    res.on('error', reject);
    res.on('end', () =>
      resolve({
        status: res.statusCode ?? 0,
        headers: res.headers,
        text: Buffer.concat(parts).toString('utf8'),
      }),
    );
  });
}
