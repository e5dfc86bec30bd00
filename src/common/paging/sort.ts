import { ValidationFailedException } from '../errors/validation-failed.exception';

export interface SortOrder {
  column: string;
  direction: 'ASC' | 'DESC';
}

/**
 * Parses `sort=field[,asc|desc]` (repeatable) against a whitelist mapping API fields to SQL
 * columns; an unknown field or direction is a 400 (contract section 4). The whitelist is also what
 * keeps user input out of the ORDER BY clause.
 */
export function parseSort(
  sort: string[] | undefined,
  allowed: Readonly<Record<string, string>>,
  fallback: SortOrder[],
): SortOrder[] {
  if (!sort || sort.length === 0) return fallback;
  const orders: SortOrder[] = [];
  for (const item of sort) {
    const [field, direction = 'asc', ...extra] = item.split(',').map((p) => p.trim());
    const dir = direction.toLowerCase();
    if (!Object.hasOwn(allowed, field) || (dir !== 'asc' && dir !== 'desc') || extra.length > 0) {
      throw new ValidationFailedException([
        {
          field: 'sort',
          message: `sort must be one of ${Object.keys(allowed).join(', ')}, optionally followed by ,asc or ,desc`,
        },
      ]);
    }
    if (!orders.some((o) => o.column === allowed[field])) {
      orders.push({ column: allowed[field], direction: dir === 'asc' ? 'ASC' : 'DESC' });
    }
  }
  return orders;
}

/**
 * The one tie-break rule of every list: `orders`, then the columns of `key` they do not name, in
 * the direction the orders give key's first column (else `direction`). The last column of `key` is
 * unique, so the order is total and pages never overlap or skip; once `orders` name it, they are
 * total already and nothing is added.
 */
export function totalOrder(
  orders: SortOrder[],
  key: readonly string[],
  direction: SortOrder['direction'] = 'ASC',
): SortOrder[] {
  if (orders.some((o) => o.column === key[key.length - 1])) return orders;
  const dir = orders.find((o) => o.column === key[0])?.direction ?? direction;
  const ties = key.filter((column) => !orders.some((o) => o.column === column));
  return [...orders, ...ties.map((column) => ({ column, direction: dir }))];
}
