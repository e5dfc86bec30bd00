import { useEffect, useRef } from 'react';
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

/**
 * Previous and next. The button pressed is disabled on the first or last page, which would drop the
 * keyboard's focus to the page's start: focus moves to the other button instead.
 */
export function Pager({ page, last, onPage }: { page: number; last: boolean; onPage: (p: number) => void }) {
  const previous = useRef<HTMLButtonElement>(null);
  const next = useRef<HTMLButtonElement>(null);
  const pressed = useRef<'previous' | 'next' | undefined>(undefined);
  useEffect(() => {
    if (pressed.current === 'next' && last) previous.current?.focus();
    if (pressed.current === 'previous' && page === 0) next.current?.focus();
    pressed.current = undefined;
  }, [page, last]);
  if (page === 0 && last) return null;
  const turn = (to: 'previous' | 'next') => {
    pressed.current = to;
    onPage(to === 'next' ? page + 1 : page - 1);
  };
  return (
    <nav className="pager" aria-label="Pages">
      <button type="button" ref={previous} disabled={page === 0} onClick={() => turn('previous')}>
        Previous page
      </button>
      <button type="button" ref={next} disabled={last} onClick={() => turn('next')}>
        Next page
      </button>
    </nav>
  );
}
