import { halLinks, HalLinks } from '../hal/hal';

/** The spec's page envelope, plus HAL links (contract section 4). */
export interface Page<T> {
  totalPages: number;
  totalElements: number;
  numberOfElements: number;
  /** The page asked for: a bigint past Number.MAX_SAFE_INTEGER, written with its exact digits. */
  number: number | bigint;
  size: number;
  first: boolean;
  last: boolean;
  empty: boolean;
  content: T[];
  _links: HalLinks;
}

export type QueryValues = Record<string, string | number | boolean | string[] | undefined>;

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Rows before `page`, or undefined past Number.MAX_SAFE_INTEGER: no list holds that many rows, so
 * such a page is empty without a query, and no OFFSET PostgreSQL's bigint cannot hold is sent.
 */
export function pageOffset(page: bigint, size: number): number | undefined {
  const offset = page * BigInt(size);
  return offset <= MAX_SAFE ? Number(offset) : undefined;
}

function href(path: string, query: QueryValues, page: bigint): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, page: page.toString() })) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return `${path}?${params.toString()}`;
}

/** `query` is what the caller asked for (besides page), so every link keeps it. */
export function toPage<T>(
  content: T[],
  totalElements: number,
  page: bigint,
  size: number,
  path: string,
  query: QueryValues,
): Page<T> {
  const totalPages = Math.ceil(totalElements / size);
  const lastPage = BigInt(Math.max(totalPages - 1, 0));
  const q = { ...query, size };
  return {
    totalPages,
    totalElements,
    numberOfElements: content.length,
    number: page <= MAX_SAFE ? Number(page) : page,
    size,
    first: page === 0n,
    last: page >= lastPage,
    empty: content.length === 0,
    content,
    _links: halLinks({
      self: href(path, q, page),
      first: href(path, q, 0n),
      last: href(path, q, lastPage),
      next: page < lastPage ? href(path, q, page + 1n) : undefined,
      prev: page > 0n ? href(path, q, page - 1n < lastPage ? page - 1n : lastPage) : undefined,
    }),
  };
}
