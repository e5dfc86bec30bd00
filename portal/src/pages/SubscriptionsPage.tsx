import { useState } from 'react';
import type { FormEvent } from 'react';
import { toBody } from '../api';
import type { Page, Subscription } from '../api';
import { ConfirmButton, ErrorMessage, Link, useLoad, usePortal } from '../portal';

type ActiveFilter = '' | 'true' | 'false';

/** Enable/disable and delete, shared by the list and a subscription's page. */
export function useSubscriptionActions(onDone: (deleted: boolean) => void) {
  const { api } = usePortal();
  const [error, setError] = useState<unknown>();
  const [status, setStatus] = useState<string>();
  const run = async (work: () => Promise<string>, deleted = false) => {
    setError(undefined);
    setStatus(undefined);
    try {
      setStatus(await work());
      onDone(deleted);
    } catch (e) {
      setError(e);
    }
  };
  return {
    error,
    status,
    toggle: (s: Subscription) =>
      run(async () => {
        await api.updateSubscription(s.id, toBody(s, { active: !s.active }));
        return `${s.name} is now ${s.active ? 'disabled' : 'enabled'}.`;
      }),
    remove: (s: Subscription) =>
      run(async () => {
        await api.deleteSubscription(s.id);
        return `${s.name} was deleted.`;
      }, true),
  };
}

export function SubscriptionActions({
  subscription: s,
  actions,
}: {
  subscription: Subscription;
  actions: ReturnType<typeof useSubscriptionActions>;
}) {
  return (
    <div className="actions">
      <Link to={`/subscriptions/${s.id}/edit`} className="button">
        Edit<span className="visually-hidden"> {s.name}</span>
      </Link>
      <button type="button" onClick={() => void actions.toggle(s)}>
        {s.active ? 'Disable' : 'Enable'}
        <span className="visually-hidden"> {s.name}</span>
      </button>
      <ConfirmButton
        label={`Delete ${s.name}`}
        question={`Delete the subscription “${s.name}”? Its pending deliveries are dropped and its delivery history goes with it.`}
        confirmLabel="Yes, delete it"
        className="danger"
        onConfirm={() => actions.remove(s)}
      />
    </div>
  );
}

export function SubscriptionsPage() {
  const { api, session, tenant } = usePortal();
  const admin = session?.me.isAdministrator ?? false;
  const [index, setIndex] = useState('');
  const [active, setActive] = useState<ActiveFilter>('');
  const [applied, setApplied] = useState<{ index: string; active: ActiveFilter }>({ index: '', active: '' });
  const [page, setPage] = useState(0);
  const [data, loadError, reload, loading] = useLoad(
    () =>
      api.subscriptions({
        index: applied.index,
        active: applied.active || undefined,
        page,
        tenant: admin ? tenant || undefined : undefined,
      }),
    [applied, page, tenant],
  );
  const actions = useSubscriptionActions(reload);

  const search = (event: FormEvent) => {
    event.preventDefault();
    setPage(0);
    setApplied({ index: index.trim(), active });
  };

  return (
    <>
      <h1 tabIndex={-1}>Subscriptions</h1>
      <p>
        <Link to="/subscriptions/new" className="button primary">
          New subscription
        </Link>
      </p>
      <form className="filters" onSubmit={search} aria-label="Search subscriptions">
        <div>
          <label htmlFor="search-index">Name contains</label>
          <input id="search-index" type="search" value={index} onChange={(e) => setIndex(e.target.value)} />
        </div>
        <div>
          <label htmlFor="search-active">State</label>
          <select
            id="search-active"
            value={active}
            onChange={(e) => setActive(e.target.value as ActiveFilter)}
          >
            <option value="">Active and inactive</option>
            <option value="true">Active only</option>
            <option value="false">Inactive only</option>
          </select>
        </div>
        <button type="submit">Search</button>
      </form>
      {applied.active && applied.index && (
        <p className="hint">
          The name filter applies to the list of every state only; the state filter is shown.
        </p>
      )}
      <div aria-live="polite">{actions.status && <p role="status">{actions.status}</p>}</div>
      <ErrorMessage error={actions.error} />
      <ErrorMessage error={loadError} />
      {loading && !data && <p>Loading…</p>}
      {data && (
        <>
          <PageCount page={data} one="subscription" many="subscriptions" />
          <ul className="cards" aria-label="Subscriptions">
            {data.content.map((s) => (
              <li key={s.id} className="card">
                <h2>
                  <Link to={`/subscriptions/${s.id}`}>{s.name}</Link>
                </h2>
                <p className="url">{s.url}</p>
                <p>
                  <span className={s.active ? 'badge ok' : 'badge off'}>
                    {s.active ? 'Active' : 'Inactive'}
                  </span>{' '}
                  {admin && <span className="muted">tenant {s.tenant}</span>}
                </p>
                <SubscriptionActions subscription={s} actions={actions} />
              </li>
            ))}
          </ul>
          <Pager page={data.number} last={data.last} onPage={setPage} />
        </>
      )}
    </>
  );
}

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
