import type { Response } from 'supertest';
import { startTestApp, TestApp, TestUser } from './support/test-app';

const PATH = '/webhooks/subscriptions';
const HAL = 'application/hal+json;charset=UTF-8';

const bearer = (user: TestUser) => ({ authorization: `Bearer ${user.token}` });

interface Item {
  id: number;
  name: string;
  active: boolean;
  createdAt: string;
  updatedAt: string;
}

function expectValidationError(res: Response, path: string, field: string): void {
  expect(res.status).toBe(400);
  expect(res.headers['content-type']).toBe(HAL);
  expect(res.body).toMatchObject({ status: 400, error: 'Bad Request', path, requestId: expect.any(String) });
  expect(res.body.errors.map((e: { field: string }) => e.field)).toContain(field);
}

const hrefQuery = (href: string) => Object.fromEntries(new URL(href, 'http://x').searchParams);

type Key = 'id' | 'name' | 'active' | 'createdAt' | 'updatedAt';
const compare = (key: Key, direction: 'asc' | 'desc') => (a: Item, b: Item) => {
  const av = a[key];
  const bv = b[key];
  // Lower-case ASCII names only: the same order under any collation.
  let c = av === bv ? 0 : av < bv ? -1 : 1;
  if (direction === 'desc') c = -c;
  return c !== 0 ? c : a.id - b.id; // tie-break: id ascending
};

describe('Webhook subscription lists: paging, sort, index, active', () => {
  let t: TestApp;
  let partner: TestUser;
  let items: Item[];

  const post = async (user: TestUser, name: string, active = true) =>
    (
      await t
        .http()
        .post(PATH)
        .set(bearer(user))
        .send({ name, active, url: 'https://r.example.com/h', events: ['LICENCE_CREATED_SUCCESS'] })
        .expect(200)
    ).body as Item;
  const list = (query: Record<string, unknown>, user = partner, path = PATH) =>
    t.http().get(path).set(bearer(user)).query(query);

  beforeAll(async () => {
    t = await startTestApp();
    partner = await t.createUser();
    // Names, flags and timestamps in orders that differ from id order, with ties on name and
    // timestamps so the id tie-break shows.
    const names = ['delta', 'foxtrot', 'charlie', 'bravo', 'alpha', 'echo', 'charlie'];
    const actives = [true, false, true, false, true, true, false];
    items = [];
    for (let i = 0; i < names.length; i++) items.push(await post(partner, names[i], actives[i]));
    const created = [5, 1, 3, 1, 7, 2, 6];
    const updated = [2, 6, 6, 1, 3, 7, 5];
    for (let i = 0; i < items.length; i++) {
      await t.dataSource.query(`UPDATE subscriptions SET created_at = $2, updated_at = $3 WHERE id = $1`, [
        items[i].id,
        new Date(Date.UTC(2025, 0, created[i])),
        new Date(Date.UTC(2025, 1, updated[i])),
      ]);
    }
    const fresh = await list({ size: 100 }).expect(200);
    items = fresh.body.content;
    // Another tenant's rows never show up in this partner's lists.
    const other = await t.createUser();
    await post(other, 'alpha-other');
    await post(other, 'zulu-other', false);
  });
  afterAll(async () => {
    await t?.close();
  });

  describe('page envelope', () => {
    it('defaults to page 0, size 20, ordered by id', async () => {
      const res = await list({}).expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      expect(res.body).toMatchObject({
        totalPages: 1,
        totalElements: 7,
        numberOfElements: 7,
        number: 0,
        size: 20,
        first: true,
        last: true,
        empty: false,
      });
      const ids = res.body.content.map((s: Item) => s.id);
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
      expect(res.body.content[0]).toEqual({
        id: expect.any(Number),
        tenant: partner.tenant,
        active: expect.any(Boolean),
        name: expect.any(String),
        url: 'https://r.example.com/h',
        description: null,
        events: ['LICENCE_CREATED_SUCCESS'],
        headerName: null,
        maxDeliveriesPerSecond: null,
        health: {
          status: 'UNKNOWN',
          lastAttemptAt: null,
          lastSuccessAt: null,
          failingSince: null,
          consecutiveFailures: 0,
        },
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        _links: {
          self: { href: `${PATH}/${ids[0]}` },
          deliveries: { href: `${PATH}/${ids[0]}/deliveries` },
        },
      });
      expect(Object.keys(res.body._links).sort()).toEqual(['first', 'last', 'self']);
    });

    it('computes every value of a multi-page result', async () => {
      const ids = items.map((s) => s.id).sort((a, b) => a - b);
      const first = await list({ size: 3 }).expect(200);
      expect(first.body).toMatchObject({
        totalPages: 3,
        totalElements: 7,
        numberOfElements: 3,
        number: 0,
        size: 3,
        first: true,
        last: false,
        empty: false,
      });
      expect(first.body.content.map((s: Item) => s.id)).toEqual(ids.slice(0, 3));
      expect(hrefQuery(first.body._links.self.href)).toEqual({ size: '3', page: '0' });
      expect(hrefQuery(first.body._links.next.href)).toEqual({ size: '3', page: '1' });
      expect(hrefQuery(first.body._links.last.href)).toEqual({ size: '3', page: '2' });
      expect(first.body._links.prev).toBeUndefined();

      const middle = await list({ size: 3, page: 1 }).expect(200);
      expect(middle.body).toMatchObject({ number: 1, numberOfElements: 3, first: false, last: false });
      expect(middle.body.content.map((s: Item) => s.id)).toEqual(ids.slice(3, 6));
      expect(hrefQuery(middle.body._links.prev.href).page).toBe('0');
      expect(hrefQuery(middle.body._links.next.href).page).toBe('2');

      const last = await list({ size: 3, page: 2 }).expect(200);
      expect(last.body).toMatchObject({
        totalPages: 3,
        number: 2,
        numberOfElements: 1,
        first: false,
        last: true,
        empty: false,
      });
      expect(last.body.content.map((s: Item) => s.id)).toEqual(ids.slice(6));
      expect(last.body._links.next).toBeUndefined();
      expect(last.body._links.self.href.startsWith(`${PATH}?`)).toBe(true);
    });

    it('answers a page past the end with 200 and empty content', async () => {
      const res = await list({ size: 3, page: 9 }).expect(200);
      expect(res.body).toMatchObject({
        totalPages: 3,
        totalElements: 7,
        numberOfElements: 0,
        number: 9,
        size: 3,
        first: false,
        last: true,
        empty: true,
        content: [],
      });
      expect(hrefQuery(res.body._links.prev.href).page).toBe('2');
      const far = await list({ page: 2147483647, size: 100 }).expect(200);
      expect(far.body).toMatchObject({ empty: true, content: [], number: 2147483647 });
    });

    it.each([
      ['2147483648', PATH],
      ['90071992547409', PATH], // × 100 is just under 2^53: the offset still goes to PostgreSQL
      ['90071992547410', PATH], // × 100 is past 2^53: empty without a query
      ['99999999999999999999', PATH],
      ['99999999999999999999', `${PATH}/active`],
    ])('answers page=%s of %s with the right envelope, count and links', async (page, path) => {
      const res = await list({ page, size: 100, sort: 'name,desc' }, partner, path).expect(200);
      const total = path === PATH ? 7 : items.filter((s) => s.active).length;
      expect(res.body).toMatchObject({
        totalElements: total,
        totalPages: 1,
        numberOfElements: 0,
        size: 100,
        first: false,
        last: true,
        empty: true,
        content: [],
      });
      expect(res.text).toContain(`"number":${page},`);
      expect(hrefQuery(res.body._links.self.href)).toEqual({ sort: 'name,desc', size: '100', page });
      expect(hrefQuery(res.body._links.prev.href).page).toBe('0');
      expect(res.body._links.next).toBeUndefined();
    });

    it('keeps sort and index in every link', async () => {
      const res = await list({ size: 1, sort: 'name,desc', index: 'a' }).expect(200);
      for (const rel of ['self', 'first', 'last', 'next']) {
        expect(hrefQuery(res.body._links[rel].href)).toMatchObject({
          sort: 'name,desc',
          index: 'a',
          size: '1',
        });
      }
    });
  });

  describe('sort', () => {
    it.each([
      ['id', 'asc'],
      ['id', 'desc'],
      ['name', 'asc'],
      ['name', 'desc'],
      ['active', 'asc'],
      ['active', 'desc'],
      ['createdAt', 'asc'],
      ['createdAt', 'desc'],
      ['updatedAt', 'asc'],
      ['updatedAt', 'desc'],
    ] as Array<[Key, 'asc' | 'desc']>)('sorts by %s %s, ties broken by id', async (key, direction) => {
      const expected = [...items].sort(compare(key, direction)).map((s) => s.id);
      const res = await list({ sort: `${key},${direction}` }).expect(200);
      expect(res.body.content.map((s: Item) => s.id)).toEqual(expected);
      // The default direction is asc.
      if (direction === 'asc') {
        const bare = await list({ sort: key }).expect(200);
        expect(bare.body.content.map((s: Item) => s.id)).toEqual(expected);
      }
    });

    it('pages through a sorted list without gaps or repeats', async () => {
      const expected = [...items].sort(compare('name', 'desc')).map((s) => s.id);
      const seen: number[] = [];
      for (let page = 0; page < 4; page++) {
        const res = await list({ sort: 'name,DESC', size: 2, page }).expect(200);
        seen.push(...res.body.content.map((s: Item) => s.id));
      }
      expect(seen).toEqual(expected);
    });

    it('accepts several sort parameters, applied in order', async () => {
      const expected = [...items]
        .sort((a, b) => {
          const byActive = compare('active', 'desc')(a, b);
          return a.active !== b.active ? byActive : compare('name', 'asc')(a, b);
        })
        .map((s) => s.id);
      const res = await t
        .http()
        .get(`${PATH}?sort=active,desc&sort=name,asc`)
        .set(bearer(partner))
        .expect(200);
      expect(res.body.content.map((s: Item) => s.id)).toEqual(expected);
      expect(res.body._links.self.href).toContain('sort=active%2Cdesc&sort=name%2Casc');
    });

    it.each([
      'tenant',
      'password',
      'url',
      'headerValue',
      'header_value_encrypted',
      'created_at',
      'name,up',
      'name,asc,id',
      'id;DROP TABLE subscriptions',
      '(select 1)',
      '',
      ',asc',
      'x'.repeat(65),
    ])('rejects sort=%p with 400 naming sort', async (sort) => {
      expectValidationError(await list({ sort }), PATH, 'sort');
    });
  });

  describe('index', () => {
    let owner: TestUser;
    const named: Record<string, number> = {};

    beforeAll(async () => {
      owner = await t.createUser();
      for (const name of [
        '100% pure',
        '100 percent',
        'a_b',
        'axb',
        'back\\slash',
        'backXslash',
        "O'Brien",
        'MiXeD Case',
        'plain',
      ]) {
        named[name] = (await post(owner, name)).id;
      }
    });

    const search = async (index: string) => {
      const res = await list({ index, size: 100 }, owner).expect(200);
      return res.body.content.map((s: Item) => s.name).sort();
    };

    it('matches a case-insensitive substring of name', async () => {
      await expect(search('mixed')).resolves.toEqual(['MiXeD Case']);
      await expect(search('XED c')).resolves.toEqual(['MiXeD Case']);
      await expect(search('PLAIN')).resolves.toEqual(['plain']);
      await expect(search('nothing-like-this')).resolves.toEqual([]);
    });

    it('makes % match itself', async () => {
      await expect(search('%')).resolves.toEqual(['100% pure']);
      await expect(search('0% p')).resolves.toEqual(['100% pure']);
      await expect(search('100%')).resolves.toEqual(['100% pure']);
    });

    it('makes _ match itself', async () => {
      await expect(search('_')).resolves.toEqual(['a_b']);
      await expect(search('a_b')).resolves.toEqual(['a_b']);
    });

    it('makes a backslash match itself', async () => {
      await expect(search('\\')).resolves.toEqual(['back\\slash']);
      await expect(search('k\\s')).resolves.toEqual(['back\\slash']);
      await expect(search('\\%')).resolves.toEqual([]);
    });

    it('treats quotes and SQL as text', async () => {
      await expect(search("O'B")).resolves.toEqual(["O'Brien"]);
      await expect(search("' OR '1'='1")).resolves.toEqual([]);
      await expect(search('%; DROP TABLE subscriptions; --')).resolves.toEqual([]);
      await t.http().get(`${PATH}/${named.plain}`).set(bearer(owner)).expect(200);
    });

    it('counts only the matches, and an empty index matches everything', async () => {
      const res = await list({ index: '100', size: 1 }, owner).expect(200);
      expect(res.body).toMatchObject({ totalElements: 2, totalPages: 2, numberOfElements: 1 });
      const all = await list({ index: '' }, owner).expect(200);
      expect(all.body.totalElements).toBe(Object.keys(named).length);
    });

    it("never matches another tenant's names", async () => {
      await expect(search('other')).resolves.toEqual([]);
    });
  });

  describe('GET /webhooks/subscriptions/active', () => {
    const ACTIVE = `${PATH}/active`;
    const ids = (res: Response) => res.body.content.map((s: Item) => s.id);

    it('lists active subscriptions when active is omitted', async () => {
      const res = await list({}, partner, ACTIVE).expect(200);
      expect(res.headers['content-type']).toBe(HAL);
      const expected = items.filter((s) => s.active).map((s) => s.id);
      expect(ids(res)).toEqual(expected.sort((a, b) => a - b));
      expect(res.body).toMatchObject({ totalElements: expected.length, number: 0, size: 20 });
      expect(hrefQuery(res.body._links.self.href)).toEqual({ size: '20', page: '0' });
    });

    it('lists active=true and active=false', async () => {
      const on = await list({ active: 'true' }, partner, ACTIVE).expect(200);
      expect(ids(on)).toEqual(items.filter((s) => s.active).map((s) => s.id));
      const off = await list({ active: 'false' }, partner, ACTIVE).expect(200);
      expect(ids(off)).toEqual(items.filter((s) => !s.active).map((s) => s.id));
      expect(off.body.content.every((s: Item) => s.active === false)).toBe(true);
      expect(hrefQuery(off.body._links.self.href)).toEqual({ active: 'false', size: '20', page: '0' });
    });

    it('pages', async () => {
      const expected = items.filter((s) => s.active).map((s) => s.id);
      const res = await list({ size: 2, page: 1 }, partner, ACTIVE).expect(200);
      expect(res.body).toMatchObject({
        totalElements: expected.length,
        totalPages: Math.ceil(expected.length / 2),
        number: 1,
        numberOfElements: 2,
        first: false,
      });
      expect(ids(res)).toEqual(expected.slice(2, 4));
      const past = await list({ size: 2, page: 50 }, partner, ACTIVE).expect(200);
      expect(past.body).toMatchObject({ content: [], empty: true, last: true });
    });

    it.each(['TRUE', 'False', '1', '0', 'yes', '', 'null', ' true', 'true '])(
      'rejects active=%p with 400 naming active',
      async (active) => {
        expectValidationError(await list({ active }, partner, ACTIVE), ACTIVE, 'active');
      },
    );

    it('rejects a repeated active parameter', async () => {
      const res = await t.http().get(`${ACTIVE}?active=true&active=false`).set(bearer(partner));
      expectValidationError(res, ACTIVE, 'active');
    });

    it.each([
      ['name', 'desc', 'true'],
      ['name', 'asc', 'false'],
      ['createdAt', 'asc', 'false'],
      ['updatedAt', 'desc', 'true'],
      ['id', 'desc', 'true'],
    ] as Array<[Key, 'asc' | 'desc', string]>)(
      'sorts by %s %s with active=%s, ties broken by id',
      async (key, direction, active) => {
        const expected = items
          .filter((s) => String(s.active) === active)
          .sort(compare(key, direction))
          .map((s) => s.id);
        const res = await list({ active, sort: `${key},${direction}` }, partner, ACTIVE).expect(200);
        expect(ids(res)).toEqual(expected);
        expect(hrefQuery(res.body._links.self.href)).toEqual({
          sort: `${key},${direction}`,
          active,
          size: '20',
          page: '0',
        });
      },
    );

    it('pages through a sorted list without gaps or repeats, keeping sort in the links', async () => {
      const expected = items
        .filter((s) => s.active)
        .sort(compare('name', 'asc'))
        .map((s) => s.id);
      const seen: number[] = [];
      for (let page = 0; page < 3; page++) {
        const res = await list({ sort: 'name', size: 2, page }, partner, ACTIVE).expect(200);
        expect(hrefQuery(res.body._links.first.href)).toMatchObject({ sort: 'name', size: '2' });
        seen.push(...ids(res));
      }
      expect(seen).toEqual(expected);
    });

    it('accepts several sort parameters, applied in order', async () => {
      // foxtrot and bravo, both inactive, share a createdAt: name, not id, decides between them.
      const expected = items
        .filter((s) => !s.active)
        .sort((a, b) =>
          (a.createdAt === b.createdAt ? compare('name', 'asc') : compare('createdAt', 'asc'))(a, b),
        )
        .map((s) => s.id);
      const byId = items
        .filter((s) => !s.active)
        .sort(compare('createdAt', 'asc'))
        .map((s) => s.id);
      expect(expected).not.toEqual(byId);
      const res = await t
        .http()
        .get(`${ACTIVE}?active=false&sort=createdAt,asc&sort=name`)
        .set(bearer(partner))
        .expect(200);
      expect(ids(res)).toEqual(expected);
      expect(res.body._links.self.href).toContain('sort=createdAt%2Casc&sort=name');
    });

    it.each(['tenant', 'url', 'headerValue', 'created_at', 'name,up', 'id;DROP TABLE subscriptions', ''])(
      'rejects sort=%p with 400 naming sort, as the main list does',
      async (sort) => {
        expectValidationError(await list({ sort }, partner, ACTIVE), ACTIVE, 'sort');
      },
    );

    it('rejects index, which this list does not take', async () => {
      expectValidationError(await list({ index: 'a' }, partner, ACTIVE), ACTIVE, 'index');
    });
  });
});
