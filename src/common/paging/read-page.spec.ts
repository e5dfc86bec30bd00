import { Conditions } from './conditions';
import { MAX_PREPARED_STATEMENTS, NamedStatements } from './named-statements';
import { readPage } from './read-page';
import { totalOrder } from './sort';

type Call = { name: string | undefined; text: string; values: unknown[] };

/** A statement runner that records each call and answers from `answer`. */
function recorder(answer: (call: Call) => unknown[]) {
  const calls: Call[] = [];
  const run = async (name: string | undefined, text: string, values: unknown[]) => {
    const call = { name, text, values };
    calls.push(call);
    return answer(call);
  };
  return { calls, run };
}

const select = (where = new Conditions()) => ({
  columns: 'id, name',
  from: 'items',
  where,
  orderBy: totalOrder([{ column: 'name', direction: 'DESC' as const }], ['id']),
});

describe('readPage', () => {
  it('reads a page and its count in one statement, parameters after the conditions', async () => {
    const { calls, run } = recorder(() => [
      { id: 3, name: 'c', total: '45' },
      { id: 2, name: 'b', total: '45' },
    ]);
    const where = new Conditions().add((p) => `tenant = ${p}`, 'acme');
    const [rows, total] = await readPage(new NamedStatements('items', run), select(where), 2n, 20);
    expect(total).toBe(45);
    expect(rows.map((r) => (r as { id: number }).id)).toEqual([3, 2]);
    expect(calls).toHaveLength(1);
    expect(calls[0].text.replace(/\s+/g, ' ')).toBe(
      'SELECT id, name, (SELECT count(*) AS total FROM items WHERE tenant = $1) AS total ' +
        'FROM items WHERE tenant = $1 ORDER BY name DESC, id ASC LIMIT $2 OFFSET $3',
    );
    expect(calls[0].values).toEqual(['acme', 20, 40]);
  });

  it('counts on its own when the page has no rows', async () => {
    const { calls, run } = recorder((call) => (call.text.startsWith('SELECT count') ? [{ total: '7' }] : []));
    await expect(readPage(new NamedStatements('items', run), select(), 5n, 20)).resolves.toEqual([[], 7]);
    expect(calls.map((c) => c.values)).toEqual([[20, 100], []]);
    expect(calls[1].text).toBe('SELECT count(*) AS total FROM items ');
  });

  it('reads the page again when rows arrived between the empty page and its count', async () => {
    let pageReads = 0;
    const { calls, run } = recorder((call) => {
      if (call.text.startsWith('SELECT count')) return [{ total: '1' }];
      return pageReads++ === 0 ? [] : [{ id: 1, name: 'a', total: '1' }];
    });
    const [rows, total] = await readPage(new NamedStatements('items', run), select(), 0n, 20);
    expect([rows.length, total]).toEqual([1, 1]);
    expect(calls).toHaveLength(3);
  });

  it('answers a page past Number.MAX_SAFE_INTEGER rows with the count only', async () => {
    const { calls, run } = recorder(() => [{ total: '3' }]);
    await expect(readPage(new NamedStatements('items', run), select(), 10n ** 30n, 20)).resolves.toEqual([
      [],
      3,
    ]);
    expect(calls).toHaveLength(1);
    expect(calls[0].text).toMatch(/^SELECT count\(\*\)/);
  });
});

describe('NamedStatements', () => {
  it('names each text once, by prefix and hash, and runs past the cap unnamed', async () => {
    const { calls, run } = recorder(() => []);
    const statements = new NamedStatements('items', run);
    await statements.query('SELECT 1', []);
    await statements.query('SELECT 1', []);
    expect(calls[0].name).toMatch(/^items_[0-9a-f]{24}$/);
    expect(calls[1].name).toBe(calls[0].name);
    for (let i = 2; i <= MAX_PREPARED_STATEMENTS; i++) await statements.query(`SELECT ${i}`, []);
    expect(new Set(calls.map((c) => c.name)).size).toBe(MAX_PREPARED_STATEMENTS);
    await statements.query('SELECT -1', []);
    expect(calls[calls.length - 1].name).toBeUndefined();
    await statements.query('SELECT 1', []);
    expect(calls[calls.length - 1].name).toBe(calls[0].name);
  });
});

describe('Conditions', () => {
  it('numbers the placeholders in the order the conditions are added', () => {
    const where = new Conditions().add((p) => `a = ${p}`, 1).add((p) => `b > ${p}`, 2);
    expect(where.where).toBe('WHERE a = $1 AND b > $2');
    expect(where.params).toEqual([1, 2]);
    expect(new Conditions().where).toBe('');
  });
});

describe('totalOrder', () => {
  it('adds the unique key after the sort, ascending by default', () => {
    expect(totalOrder([], ['id'])).toEqual([{ column: 'id', direction: 'ASC' }]);
    expect(totalOrder([{ column: 'name', direction: 'DESC' }], ['id'])).toEqual([
      { column: 'name', direction: 'DESC' },
      { column: 'id', direction: 'ASC' },
    ]);
  });

  it('adds nothing once the sort names the unique column', () => {
    const orders = [
      { column: 'id', direction: 'DESC' as const },
      { column: 'name', direction: 'ASC' as const },
    ];
    expect(totalOrder(orders, ['id'])).toEqual(orders);
    expect(totalOrder(orders, ['sent_at', 'id'], 'DESC')).toEqual(orders);
  });

  it('breaks ties by a compound key in the direction of its first column', () => {
    const status = { column: 'status', direction: 'ASC' as const };
    expect(totalOrder([], ['sent_at', 'id'], 'DESC')).toEqual([
      { column: 'sent_at', direction: 'DESC' },
      { column: 'id', direction: 'DESC' },
    ]);
    expect(totalOrder([status], ['sent_at', 'id'], 'DESC')).toEqual([
      status,
      { column: 'sent_at', direction: 'DESC' },
      { column: 'id', direction: 'DESC' },
    ]);
    expect(totalOrder([{ column: 'sent_at', direction: 'ASC' }, status], ['sent_at', 'id'], 'DESC')).toEqual([
      { column: 'sent_at', direction: 'ASC' },
      status,
      { column: 'id', direction: 'ASC' },
    ]);
  });
});
