import type { UseQueryResult } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import type { Page } from '../api/types';
import { ErrorMessage } from './error-message';
import { PageCount, Pager } from './pager';

/** A page of cards from a query: its error, "Loading…", the count, the cards and the pager. */
export function PagedList<T>(props: {
  query: UseQueryResult<Page<T>>;
  label: string;
  one: string;
  many: string;
  onPage: (page: number) => void;
  /** One <li> per item. */
  children: (item: T) => ReactNode;
}) {
  const { error, isPending, data } = props.query;
  return (
    <>
      {/* With a page on screen, a failed turn (a 429, say) is said beside the pager, where it was asked. */}
      {!data && <ErrorMessage error={error} />}
      {isPending && <p>Loading…</p>}
      {data && (
        <>
          <PageCount page={data} one={props.one} many={props.many} />
          <ul className="cards" aria-label={props.label}>
            {data.content.map(props.children)}
          </ul>
          <ErrorMessage error={error} />
          <Pager page={data.number} last={data.last} onPage={props.onPage} />
        </>
      )}
    </>
  );
}
