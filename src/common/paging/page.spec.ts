import { pageOffset, toPage } from './page';
import { parseSort } from './sort';
import { ValidationFailedException } from '../errors/validation-failed.exception';

describe('toPage', () => {
  it('computes the envelope and links of a middle page, keeping the query', () => {
    const page = toPage([1, 2], 45, 1n, 20, '/items', { sort: ['name,desc'], index: 'a b' });
    expect(page).toMatchObject({
      totalPages: 3,
      totalElements: 45,
      numberOfElements: 2,
      number: 1,
      size: 20,
    });
    expect(page).toMatchObject({ first: false, last: false, empty: false });
    expect(page._links.self.href).toBe('/items?sort=name%2Cdesc&index=a+b&size=20&page=1');
    expect(page._links.next.href).toContain('page=2');
    expect(page._links.prev.href).toContain('page=0');
    expect(page._links.last.href).toContain('page=2');
  });

  it('marks an empty result as the first and last page with no next or prev', () => {
    const page = toPage([], 0, 0n, 20, '/items', {});
    expect(page).toMatchObject({ totalPages: 0, first: true, last: true, empty: true });
    expect(page._links.next).toBeUndefined();
    expect(page._links.prev).toBeUndefined();
  });

  it('treats a page past the end as last and empty, with prev pointing at the last page', () => {
    const page = toPage([], 45, 7n, 20, '/items', {});
    expect(page).toMatchObject({ last: true, empty: true, number: 7 });
    expect(page._links.prev.href).toContain('page=2');
  });

  it('keeps a page past 2^53 - 1 exact: a bigint number and the digits in the links', () => {
    const digits = '9'.repeat(40);
    const page = toPage([], 45, BigInt(digits), 20, '/items', {});
    expect(page).toMatchObject({ number: BigInt(digits), last: true, first: false, totalPages: 3 });
    expect(page._links.self.href).toBe(`/items?size=20&page=${digits}`);
    expect(page._links.prev.href).toBe('/items?size=20&page=2');
    expect(page._links.next).toBeUndefined();
    expect(toPage([], 45, 2n ** 53n - 1n, 20, '/items', {}).number).toBe(Number.MAX_SAFE_INTEGER);
  });
});

describe('pageOffset', () => {
  it('is page × size up to Number.MAX_SAFE_INTEGER, undefined past it', () => {
    expect(pageOffset(0n, 20)).toBe(0);
    expect(pageOffset(3n, 20)).toBe(60);
    expect(pageOffset(2147483648n, 100)).toBe(214748364800);
    expect(pageOffset(BigInt(Number.MAX_SAFE_INTEGER), 1)).toBe(Number.MAX_SAFE_INTEGER);
    expect(pageOffset(BigInt(Number.MAX_SAFE_INTEGER), 2)).toBeUndefined();
    expect(pageOffset(10n ** 400n, 1)).toBeUndefined();
  });
});

describe('parseSort', () => {
  const allowed = { id: 'id', name: 'name', createdAt: 'created_at' };

  it('maps fields to columns with a default direction of asc', () => {
    expect(parseSort(['name', 'createdAt,DESC'], allowed, [])).toEqual([
      { column: 'name', direction: 'ASC' },
      { column: 'created_at', direction: 'DESC' },
    ]);
  });

  it('falls back when sort is absent', () => {
    expect(parseSort(undefined, allowed, [{ column: 'id', direction: 'ASC' }])).toEqual([
      { column: 'id', direction: 'ASC' },
    ]);
  });

  it.each([['password'], ['name,up'], ['name,asc,extra'], ['id;drop table x'], ['']])(
    'rejects %p',
    (sort) => {
      expect(() => parseSort([sort], allowed, [])).toThrow(ValidationFailedException);
    },
  );
});
