import { useSearchParams } from 'react-router';

/** How each of a list's filters is kept in its URL: the query parameter, and its value read back. */
export type UrlFilters<F extends Record<string, string>> = {
  [K in keyof F]: { param: string; read: (value: string) => F[K] };
};

/** A value read back from a URL: one of `values`, else '' (no filter). */
export const oneOf =
  <T extends string>(values: readonly T[]) =>
  (value: string): T | '' =>
    values.find((known) => known === value) ?? '';

/**
 * A list's filters and page live in the URL (`?param=…&page=…`, the page counted from 1; an empty
 * filter and the first page left out): Back returns to the page and filters left, and a list can be
 * linked to or reloaded. Returns the filters and page shown (page from 0), and how to show others.
 */
export function useListUrlState<F extends Record<string, string>>(
  filters: UrlFilters<F>,
): [F & { page: number }, (shown: F, page?: number) => void] {
  const [params, setParams] = useSearchParams();
  const keys = Object.keys(filters) as Array<keyof F & string>;
  const current = {} as F;
  for (const key of keys) current[key] = filters[key].read(params.get(filters[key].param) ?? '');
  const page = Math.max(0, Math.floor(Number(params.get('page') ?? 1) - 1) || 0);
  const show = (shown: F, nextPage = 0) => {
    const next = new URLSearchParams();
    for (const key of keys) if (shown[key]) next.set(filters[key].param, shown[key]);
    if (nextPage > 0) next.set('page', String(nextPage + 1));
    setParams(next);
  };
  return [{ ...current, page }, show];
}
