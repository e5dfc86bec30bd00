import { halLinks, HalLinks } from '../hal/hal';

/** The spec's page envelope, plus HAL links (contract section 4). */
export interface Page<T> {
  totalPages: number;
  totalElements: number;
  numberOfElements: number;
  number: number;
  size: number;
  first: boolean;
  last: boolean;
  empty: boolean;
  content: T[];
  _links: HalLinks;
}

export type QueryValues = Record<string, string | number | boolean | string[] | undefined>;

function href(path: string, query: QueryValues, page: number): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries({ ...query, page })) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) params.append(key, String(v));
  }
  return `${path}?${params.toString()}`;
}

/** `query` is what the caller asked for (besides page), so every link keeps it. */
export function toPage<T>(
  content: T[],
  totalElements: number,
  page: number,
  size: number,
  path: string,
  query: QueryValues,
): Page<T> {
  const totalPages = Math.ceil(totalElements / size);
  const lastPage = Math.max(totalPages - 1, 0);
  const q = { ...query, size };
  return {
    totalPages,
    totalElements,
    numberOfElements: content.length,
    number: page,
    size,
    first: page === 0,
    last: page >= lastPage,
    empty: content.length === 0,
    content,
    _links: halLinks({
      self: href(path, q, page),
      first: href(path, q, 0),
      last: href(path, q, lastPage),
      next: page < lastPage ? href(path, q, page + 1) : undefined,
      prev: page > 0 ? href(path, q, Math.min(page - 1, lastPage)) : undefined,
    }),
  };
}
