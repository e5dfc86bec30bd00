import type { Page } from '../api/types';

/** "3 deliveries, page 1 of 2", announced when it changes. */
export function PageCount({ page, one, many }: { page: Page<unknown>; one: string; many: string }) {
  return (
    <p aria-live="polite">
      {page.totalElements === 1 ? `1 ${one}` : `${page.totalElements} ${many}`}
      {page.totalPages > 1 ? `, page ${page.number + 1} of ${page.totalPages}` : ''}
    </p>
  );
}

export function Pager({ page, last, onPage }: { page: number; last: boolean; onPage: (p: number) => void }) {
  if (page === 0 && last) return null;
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" disabled={page === 0} onClick={() => onPage(page - 1)}>
        Previous page
      </button>
      <button type="button" disabled={last} onClick={() => onPage(page + 1)}>
        Next page
      </button>
    </nav>
  );
}
