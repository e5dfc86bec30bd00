import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Response } from 'supertest';
import { UserRole } from '../src/common/reference/enums';
import { startDispatcherApp } from './support/dispatcher';
import { Receiver } from './support/receiver';
import { testCa } from './support/test-ca';
import { TestApp, TestUser, uniq } from './support/test-app';

const PATH = '/webhooks/subscriptions';

/** Refused case-insensitively (contract section 8, Custom header names). */
const REFUSED = [
  '__proto__',
  'constructor',
  'prototype',
  'Constructor',
  'Accept-Encoding',
  'user-agent',
  'Connection',
  'Keep-Alive',
  'Proxy-Authenticate',
  'Proxy-Authorization',
  'Proxy-Connection',
  'TE',
  'Trailer',
  'Transfer-Encoding',
  'Upgrade',
  'HOST',
  'Content-Type',
  'Content-Length',
  'content-md5',
  'Content-Disposition',
  'webhook-id',
  'Webhook-Whatever',
  'traceparent',
  'TraceState',
  'X Key',
  '',
];

/** Unusual but legal: each must reach the receiver exactly as given. */
const ACCEPTED = [
  'X-Api-Key',
  'x_custom',
  'toString',
  'toJSON',
  'set',
  'hasOwnProperty',
  'valueOf',
  'getContentType',
  'Authorization',
  "X-!#$%&'*+.^_`|~1",
];

describe('Custom header names (contract section 8, Bulkheads and budgets)', () => {
  let t: TestApp;
  let partner: TestUser;
  let hook: Receiver;
  /** Each request's header names and values as they came off the wire, by path. */
  const rawHeaders = new Map<string, string[]>();

  beforeAll(async () => {
    // Every delivery must arrive: a time-out long enough for a loaded machine (not the helper's 1.5 s).
    t = await startDispatcherApp({ WEBHOOK_TIMEOUT_MS: '15000' });
    partner = await t.createUser({ role: UserRole.ROLE_PARTNER });
    hook = await Receiver.start(testCa().server, (req: IncomingMessage, res: ServerResponse) => {
      rawHeaders.set(req.url ?? '', req.rawHeaders);
      res.end('ok');
    });
  });
  afterAll(async () => {
    await hook?.close();
    await t?.close();
  });

  const auth = () => ({ authorization: `Bearer ${partner.token}` });
  const body = (overrides: Record<string, unknown> = {}) => ({
    name: uniq('sub'),
    url: hook.url(`/${uniq('hook')}`),
    events: ['LICENCE_CREATED_SUCCESS'],
    ...overrides,
  });

  /** A 400 with the error body, naming headerName only. */
  const expectRefused = (res: Response, path: string) => {
    expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path });
    expect(res.body.errors).toEqual([{ field: 'headerName', message: expect.any(String) }]);
  };

  it.each(REFUSED)('refuses %j on create and on PUT with a 400 naming headerName', async (headerName) => {
    const refused = body({ headerName, headerValue: 'v' });
    expectRefused(await t.http().post(PATH).set(auth()).send(refused), PATH);
    const existing = await t.http().post(PATH).set(auth()).send(body()).expect(200);
    const path = `${PATH}/${existing.body.id}`;
    expectRefused(await t.http().put(path).set(auth()).send(refused), path);
    const after = await t.http().get(path).set(auth()).expect(200);
    expect(after.body.headerName).toBeNull();
  });

  it('delivers every accepted name exactly as given, set on create or on PUT', async () => {
    const paths: Array<[string, string]> = [];
    for (const [i, headerName] of ACCEPTED.entries()) {
      const value = `value-${i}`;
      const init = body();
      // Half set on create, half on PUT: both go through the same rule.
      const res =
        i % 2 === 0
          ? await t
              .http()
              .post(PATH)
              .set(auth())
              .send({ ...init, headerName, headerValue: value })
          : await t.http().post(PATH).set(auth()).send(init);
      expect(res.status).toBe(200);
      if (i % 2 === 1) {
        await t
          .http()
          .put(`${PATH}/${res.body.id}`)
          .set(auth())
          .send({ ...init, headerName, headerValue: value })
          .expect(200);
      }
      await t.http().post(`${PATH}/${res.body.id}/test`).set(auth()).expect(202);
      paths.push([new URL(init.url).pathname, headerName]);
    }
    await hook.waitFor(ACCEPTED.length, 20_000);
    for (const [i, [path, headerName]] of paths.entries()) {
      const raw = rawHeaders.get(path) ?? [];
      const pairs = raw.flatMap((name, at) => (at % 2 === 0 ? [[name, raw[at + 1]]] : []));
      expect({
        headerName,
        sent: pairs.filter(([name]) => name.toLowerCase() === headerName.toLowerCase()),
      }).toEqual({ headerName, sent: [[headerName, `value-${i}`]] });
    }
  }, 60_000);
});
