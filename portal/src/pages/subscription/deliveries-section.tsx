import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { DELIVERY_STATUSES, EVENT_TYPES, TRIGGERS } from '../../api/types';
import type { DeliveryFilters, DeliveryStatus, Trigger, WebhookEvent } from '../../api/types';
import { PagedList } from '../../components/paged-list';
import { useDeliveryList } from '../../hooks/use-deliveries';
import { answerText, formatTime, utcInputToIso } from '../../utils/format';

interface FilterDraft {
  status: DeliveryStatus | '';
  eventType: WebhookEvent | '';
  trigger: Trigger | '';
  since: string;
  until: string;
}

const EMPTY_FILTERS: FilterDraft = { status: '', eventType: '', trigger: '', since: '', until: '' };

const toFilters = (draft: FilterDraft): DeliveryFilters => ({
  status: draft.status || undefined,
  eventType: draft.eventType || undefined,
  trigger: draft.trigger || undefined,
  since: utcInputToIso(draft.since),
  until: utcInputToIso(draft.until),
});

/** The filters as typed; applied (with Apply filters) they choose the records listed. */
function FilterForm({
  onApply,
  onRefresh,
}: {
  onApply: (filters: DeliveryFilters) => void;
  onRefresh: () => void;
}) {
  const [draft, setDraft] = useState(EMPTY_FILTERS);
  const set = (field: keyof FilterDraft) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [field]: e.target.value }));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply(toFilters(draft));
  };
  const choice = (field: 'status' | 'eventType' | 'trigger', label: string, values: readonly string[]) => (
    <div>
      <label htmlFor={`filter-${field}`}>{label}</label>
      <select id={`filter-${field}`} value={draft[field]} onChange={set(field)}>
        <option value="">Any</option>
        {values.map((v) => (
          <option key={v}>{v}</option>
        ))}
      </select>
    </div>
  );
  return (
    <form className="filters" onSubmit={apply} aria-label="Filter deliveries">
      {choice('status', 'Status', DELIVERY_STATUSES)}
      {choice('eventType', 'Event type', EVENT_TYPES)}
      {choice('trigger', 'Trigger', TRIGGERS)}
      <div>
        <label htmlFor="filter-since">Sent since (UTC)</label>
        <input id="filter-since" type="datetime-local" value={draft.since} onChange={set('since')} />
      </div>
      <div>
        <label htmlFor="filter-until">Sent before (UTC)</label>
        <input id="filter-until" type="datetime-local" value={draft.until} onChange={set('until')} />
      </div>
      <div className="actions">
        <button type="submit">Apply filters</button>
        <button type="button" onClick={onRefresh}>
          Refresh
        </button>
      </div>
    </form>
  );
}

export function DeliveriesSection({ id }: { id: number }) {
  const [filters, setFilters] = useState<DeliveryFilters>({});
  const [page, setPage] = useState(0);
  const list = useDeliveryList(id, filters, page);
  const apply = (applied: DeliveryFilters) => {
    setPage(0);
    setFilters(applied);
  };
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <FilterForm onApply={apply} onRefresh={() => void list.refetch()} />
      <PagedList query={list} label="Deliveries" one="delivery" many="deliveries" onPage={setPage}>
        {(d) => (
          <li key={d.id} className="card delivery">
            <p>
              <span className={d.status === 'SUCCESS' ? 'badge ok' : 'badge failed'}>{d.status}</span>{' '}
              <Link
                to={`/subscriptions/${id}/deliveries/${d.id}`}
                aria-label={`${d.eventType}, delivery ${d.id}`}
              >
                {d.eventType}
              </Link>
            </p>
            <p className="muted">
              {formatTime(d.sentAt)} · {d.trigger} · {answerText(d)}
            </p>
            {d.errorMessage && <p className="muted">{d.errorMessage}</p>}
          </li>
        )}
      </PagedList>
    </section>
  );
}
