import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { DELIVERY_STATUSES, EVENT_TYPES, localInputToIso, TRIGGERS } from '../api';
import type { DeliveryFilters, Subscription } from '../api';
import { knownAttempts, outcomeText, waitForAttempt } from '../attempts';
import { ConfirmButton, ErrorMessage, formatTime, Link, useLoad, usePortal } from '../portal';
import { PageCount, Pager, SubscriptionActions, useSubscriptionActions } from './SubscriptionsPage';

function SecretSection({ id }: { id: number }) {
  const { api } = usePortal();
  const [key, setKey] = useState<string>();
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<unknown>();
  const reveal = async () => {
    setError(undefined);
    setStatus(undefined);
    try {
      setKey((await api.secret(id)).key);
    } catch (e) {
      setError(e);
    }
  };
  const rotate = async () => {
    setError(undefined);
    try {
      setKey((await api.rotateSecret(id)).key);
      setStatus('The secret was rotated. The previous one keeps signing alongside it for 24 hours.');
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section aria-labelledby="secret-heading">
      <h2 id="secret-heading">Signing secret</h2>
      <p>
        Receivers verify each delivery&apos;s webhook-signature header with this secret (Standard Webhooks).
      </p>
      {key ? (
        <p>
          <code className="secret" aria-label="Current signing secret">
            {key}
          </code>
        </p>
      ) : (
        <p className="muted">Hidden.</p>
      )}
      <div className="actions">
        {key ? (
          <button type="button" onClick={() => setKey(undefined)}>
            Hide secret
          </button>
        ) : (
          <button type="button" onClick={() => void reveal()}>
            Reveal secret
          </button>
        )}
        <ConfirmButton
          label="Rotate secret"
          question="Rotate the signing secret? A new secret signs every delivery from now on; the previous one keeps signing alongside it for 24 hours, so receivers can switch."
          confirmLabel="Yes, rotate it"
          onConfirm={rotate}
        />
      </div>
      <div aria-live="polite">{status && <p role="status">{status}</p>}</div>
      <ErrorMessage error={error} />
    </section>
  );
}

/** Sends the action, then shows the new attempt's outcome as soon as its record exists. */
export function useAttemptWatch(id: number, trigger: string, onRecorded: () => void) {
  const { api } = usePortal();
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<unknown>();
  const [recordId, setRecordId] = useState<string>();
  const abort = useRef<AbortController>(undefined);
  useEffect(() => () => abort.current?.abort(), []);
  const start = async (send: () => Promise<number | string>, sentText: string) => {
    abort.current?.abort();
    const controller = new AbortController();
    abort.current = controller;
    setError(undefined);
    setRecordId(undefined);
    try {
      const known = await knownAttempts(api, id, trigger);
      const eventId = await send();
      setStatus(`${sentText} Waiting for its delivery…`);
      const record = await waitForAttempt(api, id, trigger, eventId, known, controller.signal);
      if (controller.signal.aborted) return;
      if (record) {
        setStatus(`Delivered: ${outcomeText(record)}.`);
        setRecordId(String(record.id));
        onRecorded();
      } else
        setStatus('Not recorded yet: the delivery is still pending. Look at the deliveries below later.');
    } catch (e) {
      setStatus(undefined);
      setError(e);
    }
  };
  return { status, error, recordId, start };
}

function TestSection({ id, onRecorded }: { id: number; onRecorded: () => void }) {
  const { api } = usePortal();
  const [eventType, setEventType] = useState<string>(EVENT_TYPES[0]);
  const watch = useAttemptWatch(id, 'TEST', onRecorded);
  const send = (event: FormEvent) => {
    event.preventDefault();
    void watch.start(async () => (await api.sendTest(id, eventType)).eventId, 'Test event sent.');
  };
  return (
    <section aria-labelledby="test-heading">
      <h2 id="test-heading">Test event</h2>
      <form className="filters" onSubmit={send}>
        <div>
          <label htmlFor="test-type">Event type</label>
          <select id="test-type" value={eventType} onChange={(e) => setEventType(e.target.value)}>
            {EVENT_TYPES.map((t) => (
              <option key={t}>{t}</option>
            ))}
          </select>
        </div>
        <button type="submit">Send test event</button>
      </form>
      <div aria-live="polite">
        {watch.status && (
          <p role="status" className="test-outcome">
            {watch.status}{' '}
            {watch.recordId && (
              <Link to={`/subscriptions/${id}/deliveries/${watch.recordId}`}>See its details</Link>
            )}
          </p>
        )}
      </div>
      <ErrorMessage error={watch.error} />
    </section>
  );
}

function RecoverSection({ id, onDone }: { id: number; onDone: () => void }) {
  const { api } = usePortal();
  const [since, setSince] = useState('');
  const [status, setStatus] = useState<string>();
  const [error, setError] = useState<unknown>();
  const sinceIso = localInputToIso(since);
  const recover = async () => {
    if (!sinceIso) return;
    setError(undefined);
    setStatus(undefined);
    try {
      const { events } = await api.recover(id, sinceIso);
      setStatus(
        events === 1
          ? '1 failed delivery is being sent again.'
          : `${events} failed deliveries are being sent again.`,
      );
      onDone();
    } catch (e) {
      setError(e);
    }
  };
  return (
    <section aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover failed deliveries</h2>
      <p>Sends again every event since the chosen time whose latest delivery to this subscription failed.</p>
      <div className="filters">
        <div>
          <label htmlFor="recover-since">Since (your local time)</label>
          <input
            id="recover-since"
            type="datetime-local"
            value={since}
            onChange={(e) => setSince(e.target.value)}
          />
        </div>
        <ConfirmButton
          label="Recover failed deliveries"
          question={`Send again every failed delivery since ${sinceIso ?? 'the chosen time'}?`}
          confirmLabel="Yes, send them again"
          onConfirm={recover}
          disabled={!sinceIso}
        />
      </div>
      <div aria-live="polite">{status && <p role="status">{status}</p>}</div>
      <ErrorMessage error={error} />
    </section>
  );
}

interface FilterDraft {
  status: string;
  eventType: string;
  trigger: string;
  since: string;
  until: string;
}

const EMPTY_FILTERS: FilterDraft = { status: '', eventType: '', trigger: '', since: '', until: '' };

function DeliveriesSection({ id, generation }: { id: number; generation: number }) {
  const { api } = usePortal();
  const [draft, setDraft] = useState(EMPTY_FILTERS);
  const [filters, setFilters] = useState<DeliveryFilters>({});
  const [page, setPage] = useState(0);
  const [data, error, reload, loading] = useLoad(
    () => api.deliveries(id, filters, page),
    [id, filters, page, generation],
  );
  const set = (field: keyof FilterDraft) => (e: { target: { value: string } }) =>
    setDraft((d) => ({ ...d, [field]: e.target.value }));
  const apply = (event: FormEvent) => {
    event.preventDefault();
    setPage(0);
    setFilters({
      status: draft.status || undefined,
      eventType: draft.eventType || undefined,
      trigger: draft.trigger || undefined,
      since: localInputToIso(draft.since),
      until: localInputToIso(draft.until),
    });
  };
  const choice = (field: keyof FilterDraft, label: string, values: readonly string[]) => (
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
    <section aria-labelledby="deliveries-heading">
      <h2 id="deliveries-heading">Deliveries</h2>
      <form className="filters" onSubmit={apply} aria-label="Filter deliveries">
        {choice('status', 'Status', DELIVERY_STATUSES)}
        {choice('eventType', 'Event type', EVENT_TYPES)}
        {choice('trigger', 'Trigger', TRIGGERS)}
        <div>
          <label htmlFor="filter-since">Sent since</label>
          <input id="filter-since" type="datetime-local" value={draft.since} onChange={set('since')} />
        </div>
        <div>
          <label htmlFor="filter-until">Sent before</label>
          <input id="filter-until" type="datetime-local" value={draft.until} onChange={set('until')} />
        </div>
        <div className="actions">
          <button type="submit">Apply filters</button>
          <button type="button" onClick={reload}>
            Refresh
          </button>
        </div>
      </form>
      <ErrorMessage error={error} />
      {loading && !data && <p>Loading…</p>}
      {data && (
        <>
          <PageCount page={data} one="delivery" many="deliveries" />
          <ul className="cards" aria-label="Deliveries">
            {data.content.map((d) => (
              <li key={d.id} className="card delivery">
                <p>
                  <span className={d.status === 'SUCCESS' ? 'badge ok' : 'badge failed'}>{d.status}</span>{' '}
                  <Link to={`/subscriptions/${id}/deliveries/${d.id}`}>
                    {d.eventType}
                    <span className="visually-hidden">, delivery {d.id}</span>
                  </Link>
                </p>
                <p className="muted">
                  {formatTime(d.sentAt)} · {d.trigger ?? 'EVENT'} ·{' '}
                  {d.httpStatusCode !== null ? `HTTP ${d.httpStatusCode}` : 'no answer'}
                  {d.durationMs !== null && d.durationMs !== undefined ? ` · ${d.durationMs} ms` : ''}
                </p>
                {d.errorMessage && <p className="muted">{d.errorMessage}</p>}
              </li>
            ))}
          </ul>
          <Pager page={data.number} last={data.last} onPage={setPage} />
        </>
      )}
    </section>
  );
}

function Details({ s }: { s: Subscription }) {
  return (
    <dl className="details">
      <dt>State</dt>
      <dd>{s.active ? 'Active' : 'Inactive'}</dd>
      <dt>Receiver URL</dt>
      <dd className="url">{s.url}</dd>
      <dt>Events</dt>
      <dd>{s.events.join(', ')}</dd>
      <dt>Custom header</dt>
      <dd>{s.headerName ? `${s.headerName} (value hidden)` : 'none'}</dd>
      {s.description && (
        <>
          <dt>Description</dt>
          <dd>{s.description}</dd>
        </>
      )}
      <dt>Tenant</dt>
      <dd>{s.tenant}</dd>
      <dt>Updated</dt>
      <dd>{formatTime(s.updatedAt)}</dd>
    </dl>
  );
}

export function SubscriptionPage({ id }: { id: number }) {
  const { api, navigate } = usePortal();
  const [generation, setGeneration] = useState(0);
  const refresh = () => setGeneration((g) => g + 1);
  const [subscription, error, reload] = useLoad(() => api.subscription(id), [id]);
  const actions = useSubscriptionActions((deleted) => (deleted ? navigate('/subscriptions') : reload()));
  useEffect(() => {
    document.title = `${subscription?.name ?? 'Subscription'} · Partner portal`;
  }, [subscription]);
  return (
    <>
      <p>
        <Link to="/subscriptions">← All subscriptions</Link>
      </p>
      <h1 tabIndex={-1}>{subscription?.name ?? (error ? 'Subscription' : 'Loading…')}</h1>
      <ErrorMessage error={error} />
      {subscription && (
        <>
          <Details s={subscription} />
          <SubscriptionActions subscription={subscription} actions={actions} />
          <div aria-live="polite">{actions.status && <p role="status">{actions.status}</p>}</div>
          <ErrorMessage error={actions.error} />
          <SecretSection id={id} />
          <TestSection id={id} onRecorded={refresh} />
          <DeliveriesSection id={id} generation={generation} />
          <RecoverSection id={id} onDone={refresh} />
        </>
      )}
    </>
  );
}
