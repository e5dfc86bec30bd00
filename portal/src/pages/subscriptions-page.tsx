import { useEffect, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useLocation, useNavigate } from 'react-router';
import { HEALTH_STATUSES } from '../api/types';
import type { ActiveFilter, HealthFilter } from '../api/types';
import { ErrorMessage, StatusMessage } from '../components/error-message';
import { HealthBadge } from '../components/health-badge';
import { PagedList } from '../components/paged-list';
import { SubscriptionActions } from '../components/subscription-actions';
import { useDocumentTitle } from '../hooks/use-document-title';
import { oneOf, useListUrlState } from '../hooks/use-list-url-state';
import type { UrlFilters } from '../hooks/use-list-url-state';
import { useIsAdministrator, useSession } from '../hooks/use-session';
import { useSubscriptionActions } from '../hooks/use-subscription-actions';
import type { ListStatus } from '../hooks/use-subscription-actions';
import { useSubscriptionList } from '../hooks/use-subscriptions';

type Search = { index: string; active: ActiveFilter; health: HealthFilter };

/** The list's search in its URL: `?q=…&state=…&health=…` (and `page`, useListUrlState). */
const SEARCH_IN_URL: UrlFilters<Search> = {
  index: { param: 'q', read: (value) => value },
  active: { param: 'state', read: oneOf(['true', 'false'] as const) },
  health: { param: 'health', read: oneOf(HEALTH_STATUSES) },
};

function SearchForm({ applied, onSearch }: { applied: Search; onSearch: (search: Search) => void }) {
  const [index, setIndex] = useState(applied.index);
  const [active, setActive] = useState<ActiveFilter>(applied.active);
  const [health, setHealth] = useState<HealthFilter>(applied.health);
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

/**
 * What a page that returned here said (a delete from a subscription's own page), shown once: it is
 * taken out of the history entry, so a reload or a later Back does not say it again.
 */
function useStatusFromElsewhere(): string | undefined {
  const location = useLocation();
  const navigate = useNavigate();
  const [status] = useState((location.state as ListStatus | null)?.status);
  useEffect(() => {
    if (location.state) void navigate(location, { replace: true, state: null });
  }, [location, navigate]);
  return status;
}

export function SubscriptionsPage() {
  const { tenant } = useSession();
  const admin = useIsAdministrator();
  const [{ page, ...applied }, show] = useListUrlState(SEARCH_IN_URL);
  const list = useSubscriptionList({ ...applied, page, tenant: admin ? tenant : '' });
  const actions = useSubscriptionActions();
  const statusFromElsewhere = useStatusFromElsewhere();
  useDocumentTitle('Subscriptions');

  return (
    <>
      <h1 tabIndex={-1}>Subscriptions</h1>
      <p>
        <Link to="/subscriptions/new" className="button primary">
          New subscription
        </Link>
      </p>
      {/* Keyed by the applied search: Back to another search shows that one in the form. */}
      <SearchForm key={JSON.stringify(applied)} applied={applied} onSearch={(search) => show(search)} />
      {applied.active && applied.index && (
        <p className="hint">
          The name filter applies to the list of every state only; the state filter is shown.
        </p>
      )}
      <StatusMessage>{actions.status ?? statusFromElsewhere}</StatusMessage>
      <ErrorMessage error={actions.error} />
      <PagedList
        query={list}
        label="Subscriptions"
        one="subscription"
        many="subscriptions"
        onPage={(next) => show(applied, next)}
      >
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
