import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { QueryFailedError } from 'typeorm';
import { mapException } from './all-exceptions.filter';
import { isDatabaseUnavailable } from './database-unavailable';

/** A real pg error: connecting to a port nobody listens on, or to one that hangs up at once. */
async function connectError(hangUp: boolean): Promise<unknown> {
  const server = createServer((socket) => socket.destroy());
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as { port: number };
  if (!hangUp) await new Promise<void>((r) => server.close(() => r()));
  const client = new pg.Client({ host: '127.0.0.1', port, user: 'x', password: 'x', database: 'x' });
  const error = await client.connect().then(
    () => undefined,
    (e: unknown) => e,
  );
  if (hangUp) await new Promise<void>((r) => server.close(() => r()));
  return error;
}

const pgError = (code: string, message = 'x') => Object.assign(new Error(message), { code });

describe('isDatabaseUnavailable', () => {
  it('recognises pg connection errors, raw or wrapped by TypeORM', async () => {
    const refused = await connectError(false);
    expect((refused as { code?: string }).code).toBe('ECONNREFUSED');
    expect(isDatabaseUnavailable(refused)).toBe(true);
    const terminated = await connectError(true);
    expect(String(terminated)).toMatch(/Connection terminated unexpectedly/);
    expect(isDatabaseUnavailable(terminated)).toBe(true);
    expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], terminated as Error))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it("recognises a server's Unix socket that is not there (the server is down), and no other missing file", async () => {
    const folder = await mkdtemp(join(tmpdir(), 'pis-no-socket-'));
    try {
      const client = new pg.Client({ host: folder, port: 5432, user: 'x', password: 'x', database: 'x' });
      const missing = await client.connect().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(missing).toMatchObject({ code: 'ENOENT', syscall: 'connect' });
      expect(isDatabaseUnavailable(missing)).toBe(true);
      expect(mapException(missing).status).toBe(503);
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
    const noFile = await readFile(join(tmpdir(), 'pis-no-such-file')).catch((e: unknown) => e);
    expect(noFile).toMatchObject({ code: 'ENOENT', syscall: 'open' });
    expect(isDatabaseUnavailable(noFile)).toBe(false);
  });

  it('recognises SQLSTATEs of a server going away or not there yet', () => {
    for (const code of ['57P01', '57P02', '57P03', '08006', '08001', '08P01', '53300'])
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], pgError(code)))).toBe(true);
  });

  it('leaves query errors alone', () => {
    for (const code of ['23505', '22P02', '42P01', '40001'])
      expect(isDatabaseUnavailable(new QueryFailedError('SELECT 1', [], pgError(code)))).toBe(false);
    expect(isDatabaseUnavailable(new Error('boom'))).toBe(false);
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });

  it('maps to 503 with Retry-After, never 500', () => {
    expect(mapException(new QueryFailedError('SELECT 1', [], pgError('57P01')))).toEqual({
      status: 503,
      message: 'Database unavailable',
      retryAfter: 5,
    });
    expect(mapException(pgError('ECONNREFUSED')).status).toBe(503);
    expect(mapException(new QueryFailedError('SELECT 1', [], pgError('23505'))).status).toBe(409);
  });
});
