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
