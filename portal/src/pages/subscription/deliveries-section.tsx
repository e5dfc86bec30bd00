import { useState } from 'react';
import type { FormEvent } from 'react';
import { Link } from 'react-router';
import { DELIVERY_STATUSES, EVENT_TYPES, TRIGGERS } from '../../api/types';
import type { DeliveryFilters, DeliveryStatus, Trigger, WebhookEvent } from '../../api/types';
import { PagedList } from '../../components/paged-list';
import { useDeliveryList } from '../../hooks/use-deliveries';
import { oneOf, useListUrlState } from '../../hooks/use-list-url-state';
import type { UrlFilters } from '../../hooks/use-list-url-state';
import { answerText, formatTime, utcInputToIso } from '../../utils/format';

/** The filters as the form holds them ('' for any; times as typed, in UTC). */
type FilterFields = {
  status: DeliveryStatus | '';
  eventType: WebhookEvent | '';
  trigger: Trigger | '';
  since: string;
  until: string;
};

/** A time read back from the URL as its field holds it (`2026-11-29T22:52`, UTC), else ''. */
const utcInput = (value: string) => (utcInputToIso(value) ? value : '');

/** The filters in the subscription page's URL (`?status=…&eventType=…&since=…`, and `page`). */
const FILTERS_IN_URL: UrlFilters<FilterFields> = {
  status: { param: 'status', read: oneOf(DELIVERY_STATUSES) },
  eventType: { param: 'eventType', read: oneOf(EVENT_TYPES) },
  trigger: { param: 'trigger', read: oneOf(TRIGGERS) },
  since: { param: 'since', read: utcInput },
  until: { param: 'until', read: utcInput },
};

const toFilters = (fields: FilterFields): DeliveryFilters => ({
  status: fields.status || undefined,
  eventType: fields.eventType || undefined,
  trigger: fields.trigger || undefined,
  since: utcInputToIso(fields.since),
  until: utcInputToIso(fields.until),
});

/** The filters as typed; applied (with Apply filters) they choose the records listed. */
function FilterForm({
  applied,
  onApply,
  onRefresh,
}: {
  applied: FilterFields;
  onApply: (filters: FilterFields) => void;
  onRefresh: () => void;
}) {
  const [draft, setDraft] = useState(applied);
  const set = (field: keyof FilterFields) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [field]: e.target.value }));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    onApply(draft);
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
  const [{ page, ...applied }, show] = useListUrlState(FILTERS_IN_URL);
  const list = useDeliveryList(id, toFilters(applied), page);
  return (
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      {/* Keyed by the applied filters: Back to other filters shows those in the form. */}
      <FilterForm
        key={JSON.stringify(applied)}
        applied={applied}
        onApply={(filters) => show(filters)}
        onRefresh={() => void list.refetch()}
      />
      <PagedList
        query={list}
        label="Deliveries"
        one="delivery"
        many="deliveries"
        onPage={(next) => show(applied, next)}
      >
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
