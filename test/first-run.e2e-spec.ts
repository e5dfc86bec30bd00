import { createTestDatabase, dropTestDatabase } from './support/database';
import { buildService, ServiceProcess } from './support/service-process';
import pg from 'pg';

/** Pino's numeric level for warn. */
const WARN = 40;
/** Room for a loaded machine between /health/ready answering and the log line reaching the pipe. */
const LOG_LINE_WITHIN_MS = 5_000;

jest.setTimeout(240_000);

type LogRecord = { level?: number; msg?: string };

function records(output: string): LogRecord[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogRecord);
}

const firstAdminHints = (service: ServiceProcess) =>
  records(service.output).filter((r) => r.level === WARN && /first administrator/.test(r.msg ?? ''));

async function waitForLine(
  service: ServiceProcess,
  matches: (record: LogRecord) => boolean,
): Promise<LogRecord> {
  const deadline = Date.now() + LOG_LINE_WITHIN_MS;
  for (;;) {
    const found = records(service.output).find(matches);
    if (found) return found;
    if (Date.now() > deadline)
      throw new Error(`no such log line within ${LOG_LINE_WITHIN_MS} ms:\n${service.output}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function countUsers(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return Number((await client.query<{ n: string }>('SELECT count(*) AS n FROM users')).rows[0].n);
  } finally {
    await client.end();
  }
}

/**
 * First run (contract section 1, "First administrator"): with no user and no BOOTSTRAP_ADMIN_
 * variables, start-up says how to create the first administrator; once listening, one line names
 * the API, portal and docs addresses. The built service as a child process, as in production.
 */
describe('first run (contract section 1)', () => {
  let main: string;
  let removeBuild: (() => Promise<void>) | undefined;
  const databases: string[] = [];
  const running: ServiceProcess[] = [];

  beforeAll(async () => {
    const build = await buildService();
    main = build.main;
    removeBuild = build.remove;
  }, 180_000);
  afterAll(async () => {
    for (const service of running) await service.stop('SIGTERM');
    await removeBuild?.();
    for (const name of databases) await dropTestDatabase(name);
  });

  async function freshDatabase(): Promise<string> {
    const { url, name } = await createTestDatabase();
    databases.push(name);
    return url;
  }

  async function start(env: Record<string, string>): Promise<ServiceProcess> {
    const service = await ServiceProcess.start(main, { LOG_LEVEL: 'info', ...env });
    running.push(service);
    return service;
  }

  async function stop(service: ServiceProcess): Promise<void> {
    running.splice(running.indexOf(service), 1);
    await expect(service.stop('SIGTERM')).resolves.toBe(0);
  }

  it('warns how to create the first administrator when no user exists and no variable is set', async () => {
    const url = await freshDatabase();
    await expect(countUsers(url)).resolves.toBe(0);
    const service = await start({ DATABASE_URL: url });

    const hint = await waitForLine(
      service,
      (r) => r.level === WARN && /first administrator/.test(r.msg ?? ''),
    );
    expect(hint.msg).toContain('BOOTSTRAP_ADMIN_EMAIL');
    expect(hint.msg).toContain('BOOTSTRAP_ADMIN_PASSWORD');
    expect(hint.msg).toMatch(
      /npm run cli -- users:create --email \S+ --password \S+ --role ROLE_PARTNER --tenant \S+ --partner-id \S+ --partner-name \S+ --admin/,
    );
    expect(firstAdminHints(service)).toHaveLength(1);
    await stop(service);
  });

  it('says nothing of it when the variables are set, nor on the next start once a user exists', async () => {
    const url = await freshDatabase();
    const withVariables = await start({
      DATABASE_URL: url,
      BOOTSTRAP_ADMIN_EMAIL: 'first-run-admin@example.com',
      BOOTSTRAP_ADMIN_PASSWORD: 'first-run-password',
    });
    await waitForLine(withVariables, (r) => /^listening: /.test(r.msg ?? ''));
    expect(firstAdminHints(withVariables)).toEqual([]);
    await stop(withVariables);
    await expect(countUsers(url)).resolves.toBe(1);

    const userExists = await start({ DATABASE_URL: url });
    await waitForLine(userExists, (r) => /^listening: /.test(r.msg ?? ''));
    expect(firstAdminHints(userExists)).toEqual([]);
    await stop(userExists);
  });

  it('names the addresses of the API, the portal and the docs in one line once listening', async () => {
    const service = await start({ DATABASE_URL: await freshDatabase() });
    const ready = await waitForLine(service, (r) => /^listening: /.test(r.msg ?? ''));
    const api = service.url;
    expect(ready.msg).toBe(`listening: API ${api}, portal ${api}/portal, docs ${api}/docs`);
    const docs = await fetch(`${api}/docs`);
    expect(docs.status).toBe(200);
    await stop(service);
  });
});
