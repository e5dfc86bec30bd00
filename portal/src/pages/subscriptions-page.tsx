import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import type { ActiveFilter, HealthFilter } from '../api/types';
import { ErrorMessage, StatusMessage } from '../components/error-message';
import { HealthBadge } from '../components/health-badge';
import { PagedList } from '../components/paged-list';
import { SubscriptionActions } from '../components/subscription-actions';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useIsAdministrator, useSession } from '../hooks/use-session';
import { useSubscriptionActions } from '../hooks/use-subscription-actions';
import { useSubscriptionList } from '../hooks/use-subscriptions';

type Search = { index: string; active: ActiveFilter; health: HealthFilter };

function SearchForm({ onSearch }: { onSearch: (search: Search) => void }) {
  const [index, setIndex] = useState('');
  const [active, setActive] = useState<ActiveFilter>('');
  const [health, setHealth] = useState<HealthFilter>('');
  const search = (event: FormEvent) => {
    event.preventDefault();
    onSearch({ index: index.trim(), active, health });
  };
  return (
    <form className="filters" onSubmit={search} aria-label="Search subscriptions">
      <div>
        <label htmlFor="search-index">Name contains</label>
        <input id="search-index" type="search" value={index} onChange={(e) => setIndex(e.target.value)} />
      </div>
      <div>
        <label htmlFor="search-active">State</label>
        <select id="search-active" value={active} onChange={(e) => setActive(e.target.value as ActiveFilter)}>
          <option value="">Active and inactive</option>
          <option value="true">Active only</option>
          <option value="false">Inactive only</option>
        </select>
      </div>
      <div>
        <label htmlFor="search-health">Health</label>
        <select id="search-health" value={health} onChange={(e) => setHealth(e.target.value as HealthFilter)}>
          <option value="">Any health</option>
          <option value="FAILING">Failing</option>
          <option value="HEALTHY">Healthy</option>
          <option value="UNKNOWN">No attempts yet</option>
        </select>
      </div>
      <button type="submit">Search</button>
    </form>
  );
}

export function SubscriptionsPage() {
  const { tenant } = useSession();
  const admin = useIsAdministrator();
  const [applied, setApplied] = useState<Search>({ index: '', active: '', health: '' });
  const [page, setPage] = useState(0);
  const list = useSubscriptionList({ ...applied, page, tenant: admin ? tenant : '' });
  const actions = useSubscriptionActions();
  useDocumentTitle('Subscriptions');
  const search = (next: Search) => {
    setPage(0);
    setApplied(next);
  };

  return (
    <>
      <h1 tabIndex={-1}>Subscriptions</h1>
      <p>
        <Link to="/subscriptions/new" className="button primary">
          New subscription
        </Link>
      </p>
      <SearchForm onSearch={search} />
      {applied.active && applied.index && (
        <p className="hint">
          The name filter applies to the list of every state only; the state filter is shown.
        </p>
      )}
      <StatusMessage>{actions.status}</StatusMessage>
      <ErrorMessage error={actions.error} />
      <PagedList query={list} label="Subscriptions" one="subscription" many="subscriptions" onPage={setPage}>
        {(s) => (
          <li key={s.id} className="card">
            <h2>
              <Link to={`/subscriptions/${s.id}`}>{s.name}</Link>
            </h2>
            <p className="url">{s.url}</p>
            <p>
              <span className={s.active ? 'badge ok' : 'badge off'}>{s.active ? 'Active' : 'Inactive'}</span>{' '}
              <HealthBadge health={s.health} /> {admin && <span className="muted">tenant {s.tenant}</span>}
            </p>
            <SubscriptionActions subscription={s} actions={actions} />
          </li>
        )}
      </PagedList>
    </>
  );
}
