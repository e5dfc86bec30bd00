import { useEffect, useState } from 'react';
import { EVENT_TYPES } from '../api';
import type { Subscription, SubscriptionBody } from '../api';
import { ErrorMessage, Link, useLoad, usePortal, useSubmit } from '../portal';

/** What happens to the custom header's value on save (it is write-only: never shown). */
type HeaderChoice = 'keep' | 'set' | 'clear';
const HEADER_CHOICES: Array<[HeaderChoice, string]> = [
  ['keep', 'Keep the current header (its value is never shown)'],
  ['set', 'Set a new value'],
  ['clear', 'Remove the custom header'],
];

function Form({ existing }: { existing?: Subscription }) {
  const { api, navigate, session, tenant: currentTenant } = usePortal();
  const admin = session?.me.isAdministrator ?? false;
  const [name, setName] = useState(existing?.name ?? '');
  const [url, setUrl] = useState(existing?.url ?? '');
  const [description, setDescription] = useState(existing?.description ?? '');
  const [events, setEvents] = useState<string[]>(existing?.events ?? [...EVENT_TYPES]);
  const [active, setActive] = useState(existing?.active ?? true);
  const [tenant, setTenant] = useState(currentTenant);
  const [headerName, setHeaderName] = useState(existing?.headerName ?? '');
  const [headerChoice, setHeaderChoice] = useState<HeaderChoice>(existing?.headerName ? 'keep' : 'set');
  const [headerValue, setHeaderValue] = useState('');
  const { error, busy, submit } = useSubmit(async () => {
    const body: SubscriptionBody = { name: name.trim(), url: url.trim(), events, active };
    if (description.trim()) body.description = description.trim();
    if (headerChoice !== 'clear' && headerName.trim()) {
      body.headerName = headerName.trim();
      // 'keep' with the same name sends no value: the stored one stays (contract section 5).
      if (headerChoice === 'set' || headerName.trim() !== existing?.headerName)
        body.headerValue = headerValue;
    }
    if (!existing && admin && tenant.trim()) body.tenant = tenant.trim();
    const saved = existing
      ? await api.updateSubscription(existing.id, body)
      : await api.createSubscription(body);
    navigate(`/subscriptions/${saved.id}`);
  });

  const toggleEvent = (type: string, on: boolean) =>
    setEvents((list) => (on ? [...list, type] : list.filter((t) => t !== type)));

  return (
    <form onSubmit={submit} className="narrow">
      <label htmlFor="sub-name">Name</label>
      <input id="sub-name" required maxLength={255} value={name} onChange={(e) => setName(e.target.value)} />
      <label htmlFor="sub-url">Receiver URL (https)</label>
      <input
        id="sub-url"
        type="url"
        required
        maxLength={255}
        placeholder="https://"
        value={url}
        onChange={(e) => setUrl(e.target.value)}
      />
      <label htmlFor="sub-description">Description (optional)</label>
      <textarea
        id="sub-description"
        maxLength={1000}
        rows={3}
        value={description}
        onChange={(e) => setDescription(e.target.value)}
      />
      <fieldset>
        <legend>Events</legend>
        {EVENT_TYPES.map((type) => (
          <label key={type} className="check">
            <input
              type="checkbox"
              checked={events.includes(type)}
              onChange={(e) => toggleEvent(type, e.target.checked)}
            />
            {type}
          </label>
        ))}
      </fieldset>
      <label className="check">
        <input type="checkbox" checked={active} onChange={(e) => setActive(e.target.checked)} />
        Active (deliveries are sent)
      </label>
      {!existing && admin && (
        <>
          <label htmlFor="sub-tenant">Tenant (empty: your own)</label>
          <input id="sub-tenant" value={tenant} onChange={(e) => setTenant(e.target.value)} />
        </>
      )}
      <fieldset>
        <legend>Custom header (optional, sent with every delivery)</legend>
        {existing?.headerName && (
          <div role="radiogroup" aria-label="Custom header value">
            {HEADER_CHOICES.map(([choice, label]) => (
              <label className="check" key={choice}>
                <input
                  type="radio"
                  name="header-choice"
                  checked={headerChoice === choice}
                  onChange={() => setHeaderChoice(choice)}
                />
                {label}
              </label>
            ))}
          </div>
        )}
        {headerChoice !== 'clear' && (
          <>
            <label htmlFor="sub-header-name">Header name</label>
            <input
              id="sub-header-name"
              maxLength={255}
              value={headerName}
              onChange={(e) => setHeaderName(e.target.value)}
            />
          </>
        )}
        {(headerChoice === 'set' ||
          (headerChoice === 'keep' && headerName.trim() !== existing?.headerName)) && (
          <>
            <label htmlFor="sub-header-value">Header value</label>
            <input
              id="sub-header-value"
              type="password"
              autoComplete="off"
              maxLength={255}
              value={headerValue}
              onChange={(e) => setHeaderValue(e.target.value)}
            />
          </>
        )}
      </fieldset>
      <div className="actions">
        <button type="submit" className="primary" disabled={busy}>
          {existing ? 'Save changes' : 'Create subscription'}
        </button>
        <Link to={existing ? `/subscriptions/${existing.id}` : '/subscriptions'} className="button">
          Cancel
        </Link>
      </div>
      <ErrorMessage error={error} />
    </form>
  );
}

export function SubscriptionForm({ id }: { id?: number }) {
  const { api } = usePortal();
  const [existing, error] = useLoad(() => (id ? api.subscription(id) : Promise.resolve(undefined)), [id]);
  const title = id ? `Edit ${existing?.name ?? 'subscription'}` : 'New subscription';
  useEffect(() => {
    document.title = `${title} · Partner portal`;
  }, [title]);
  return (
    <>
      <h1 tabIndex={-1}>{title}</h1>
      <ErrorMessage error={error} />
      {(!id || existing) && <Form existing={existing} key={existing?.id ?? 'new'} />}
    </>
  );
}
