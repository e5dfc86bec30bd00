import type { Conditions } from './conditions';
import type { NamedStatements } from './named-statements';
import { pageOffset } from './page';
import type { SortOrder } from './sort';

/** What one list reads: a select list over a table, its WHERE and its total order (totalOrder). */
export interface PagedSelect {
  columns: string;
  from: string;
  where: Conditions;
  orderBy: SortOrder[];
  /**
   * A statement giving the same count as count(*) over `from` and `where` (one row, column `total`,
   * the same parameters), when the table's owner keeps one: the page then counts nothing.
   */
  count?: string;
}

/**
 * One page and the total count of `select`, in one round trip: the count rides along with the page
 * as a scalar subquery (computed once), so only a page with no rows (past the end, or nothing
 * matches) needs the count on its own. Each row keeps its `total` field: responses are built field
 * by field. A page past Number.MAX_SAFE_INTEGER rows is empty without a query (pageOffset).
 */
/** Reads of an empty page whose count says rows arrived meanwhile (each a race; three in a row are rare). */
const MAX_PAGE_READS = 3;

export async function readPage<T>(
  statements: Pick<NamedStatements, 'query'>,
  select: PagedSelect,
  page: bigint,
  size: number,
): Promise<[T[], number]> {
  const { columns, from, where } = select;
  const n = where.params.length;
  const offset = pageOffset(page, size);
  const count = select.count ?? `SELECT count(*) AS total FROM ${from} ${where.where}`;
  const orderBy = select.orderBy.map((o) => `${o.column} ${o.direction}`).join(', ');
  for (let attempt = 1; ; attempt++) {
    if (offset !== undefined) {
      const rows = await statements.query<T & { total: string }>(
        `SELECT ${columns}, (${count}) AS total FROM ${from} ${where.where}
          ORDER BY ${orderBy} LIMIT $${n + 1} OFFSET $${n + 2}`,
        [...where.params, size, offset],
      );
      if (rows.length > 0) return [rows, Number(rows[0].total)];
    }
    const [{ total }] = await statements.query<{ total: string }>(count, where.params);
    // Rows committed between the two statements would give a count the empty page contradicts
    // (totalElements 1, no content): the page is read again, so both come from one snapshot.
    if (offset === undefined || Number(total) <= offset || attempt === MAX_PAGE_READS)
      return [[], Number(total)];
  }
}
