import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useEffect, useRef, useState } from 'react';
import type { FormEvent } from 'react';
import { Link, useNavigate } from 'react-router';
import { formErrors } from '../api/errors';
import { queryKeys } from '../api/query-keys';
import { EVENT_TYPES } from '../api/types';
import type { Subscription, SubscriptionBody, WebhookEvent } from '../api/types';
import { useApi, useIsAdministrator, useSession } from '../hooks/use-session';
import { ErrorMessage } from './error-message';
import { FieldError, invalidField } from './field-error';

/** What happens to the custom header's value on save (it is write-only: never shown). */
type HeaderChoice = 'keep' | 'set' | 'clear';
const HEADER_CHOICES: Array<[HeaderChoice, string]> = [
  ['keep', 'Keep the current header (its value is never shown)'],
  ['set', 'Set a new value'],
  ['clear', 'Remove the custom header'],
];

interface Draft {
  name: string;
  url: string;
  description: string;
  events: WebhookEvent[];
  active: boolean;
  tenant: string;
  headerName: string;
  headerChoice: HeaderChoice;
  headerValue: string;
  /** maxDeliveriesPerSecond as typed; empty: no limit. */
  rate: string;
}

interface FieldsProps {
  draft: Draft;
  edit: (changes: Partial<Draft>) => void;
  existing?: Subscription;
  /** What the API refused, by its field name, for the fields shown. */
  errors: ReadonlyMap<string, string>;
}

/** 'keep' with the same name sends no value: the stored one stays (contract section 5). */
const sendsHeaderValue = (d: Draft, existing?: Subscription) =>
  d.headerChoice === 'set' || (d.headerChoice === 'keep' && d.headerName.trim() !== existing?.headerName);
/** Unless the header is being removed. */
const asksHeaderName = (d: Draft) => d.headerChoice !== 'clear';
/** Administrators choose the tenant of a new subscription. */
const asksTenant = (existing: Subscription | undefined, admin: boolean) => !existing && admin;

/** The API's fields this form shows for the draft: an error naming one is said beside it, any other below. */
function shownFields(d: Draft, existing: Subscription | undefined, admin: boolean): ReadonlySet<string> {
  const shown = ['name', 'url', 'description', 'events', 'maxDeliveriesPerSecond'];
  if (asksTenant(existing, admin)) shown.push('tenant');
  if (asksHeaderName(d)) shown.push('headerName');
  if (sendsHeaderValue(d, existing)) shown.push('headerValue');
  return new Set(shown);
}

function toRequest(d: Draft, existing: Subscription | undefined, admin: boolean): SubscriptionBody {
  const body: SubscriptionBody = {
    name: d.name.trim(),
    url: d.url.trim(),
    events: d.events,
    active: d.active,
  };
  if (d.description.trim()) body.description = d.description.trim();
  if (asksHeaderName(d) && d.headerName.trim()) {
    body.headerName = d.headerName.trim();
    if (sendsHeaderValue(d, existing)) body.headerValue = d.headerValue;
  }
  if (asksTenant(existing, admin) && d.tenant.trim()) body.tenant = d.tenant.trim();
  body.maxDeliveriesPerSecond = d.rate.trim() === '' ? null : Number(d.rate);
  return body;
}

function HeaderFields({ draft, edit, existing, errors }: FieldsProps) {
  return (
    <fieldset>
      <legend>Custom header (optional, sent with every delivery)</legend>
      {existing?.headerName && (
        <div role="radiogroup" aria-label="Custom header value">
          {HEADER_CHOICES.map(([choice, label]) => (
            <label className="check" key={choice}>
              <input
                type="radio"
                name="header-choice"
                checked={draft.headerChoice === choice}
                onChange={() => edit({ headerChoice: choice })}
              />
              {label}
            </label>
          ))}
        </div>
      )}
      {asksHeaderName(draft) && (
        <>
          <label htmlFor="sub-header-name">Header name</label>
          <input
            id="sub-header-name"
            maxLength={255}
            value={draft.headerName}
            onChange={(e) => edit({ headerName: e.target.value })}
            {...invalidField('sub-header-name', errors.get('headerName'))}
          />
          <FieldError fieldId="sub-header-name" error={errors.get('headerName')} />
        </>
      )}
      {sendsHeaderValue(draft, existing) && (
        <>
          <label htmlFor="sub-header-value">
            {draft.headerChoice === 'keep'
              ? 'Header value (a renamed header needs its value again: the stored one goes with the old name)'
              : 'Header value'}
          </label>
          <input
            id="sub-header-value"
            type="password"
            autoComplete="off"
            required={draft.headerName.trim() !== ''}
            maxLength={255}
            value={draft.headerValue}
            onChange={(e) => edit({ headerValue: e.target.value })}
            {...invalidField('sub-header-value', errors.get('headerValue'))}
          />
          <FieldError fieldId="sub-header-value" error={errors.get('headerValue')} />
        </>
      )}
    </fieldset>
  );
}

const initialDraft = (existing: Subscription | undefined, tenant: string): Draft => ({
  name: existing?.name ?? '',
  url: existing?.url ?? '',
  description: existing?.description ?? '',
  events: existing?.events ?? [...EVENT_TYPES],
  active: existing?.active ?? true,
  tenant,
  headerName: existing?.headerName ?? '',
  headerChoice: existing?.headerName ? 'keep' : 'set',
  headerValue: '',
  rate: existing?.maxDeliveriesPerSecond == null ? '' : String(existing.maxDeliveriesPerSecond),
});

/** Contract section 11: the browser checks the range before submitting; empty sends null. */
function RateField({ draft, edit, errors }: FieldsProps) {
  return (
    <>
      <label htmlFor="sub-rate">Most deliveries per second (optional, 1 to 1000; empty: no limit)</label>
      <input
        id="sub-rate"
        type="number"
        min={1}
        max={1000}
        step={1}
        inputMode="numeric"
        value={draft.rate}
        onChange={(e) => edit({ rate: e.target.value })}
        {...invalidField('sub-rate', errors.get('maxDeliveriesPerSecond'))}
      />
      <FieldError fieldId="sub-rate" error={errors.get('maxDeliveriesPerSecond')} />
    </>
  );
}

/** Saves the draft (POST or PUT), then opens the subscription's page. */
function useSave(draft: Draft, existing: Subscription | undefined) {
  const api = useApi();
  const queryClient = useQueryClient();
  const navigate = useNavigate();
  const admin = useIsAdministrator();
  return useMutation({
    mutationFn: () => {
      const body = toRequest(draft, existing, admin);
      return existing ? api.updateSubscription(existing.id, body) : api.createSubscription(body);
    },
    onSuccess: async (saved) => {
      queryClient.setQueryData(queryKeys.subscription(saved.id), saved);
      await navigate(`/subscriptions/${saved.id}`);
      await queryClient.invalidateQueries({ queryKey: queryKeys.subscriptionLists });
    },
  });
}

function EventsField({ draft, edit, errors }: FieldsProps) {
  const toggleEvent = (type: WebhookEvent, on: boolean) =>
    edit({ events: on ? [...draft.events, type] : draft.events.filter((t) => t !== type) });
  return (
    <fieldset>
      <legend>Events</legend>
      {EVENT_TYPES.map((type) => (
        <label key={type} className="check">
          <input
            type="checkbox"
            checked={draft.events.includes(type)}
            onChange={(e) => toggleEvent(type, e.target.checked)}
            {...invalidField('sub-events', errors.get('events'))}
          />
          {type}
        </label>
      ))}
      <FieldError fieldId="sub-events" error={errors.get('events')} />
    </fieldset>
  );
}

function MainFields({ draft, edit, existing, errors }: FieldsProps) {
  const admin = useIsAdministrator();
  return (
    <>
      <label htmlFor="sub-name">Name</label>
      <input
        id="sub-name"
        required
        maxLength={255}
        value={draft.name}
        onChange={(e) => edit({ name: e.target.value })}
        {...invalidField('sub-name', errors.get('name'))}
      />
      <FieldError fieldId="sub-name" error={errors.get('name')} />
      <label htmlFor="sub-url">Receiver URL (https)</label>
      <input
        id="sub-url"
        type="url"
        required
        maxLength={255}
        placeholder="https://"
        value={draft.url}
        onChange={(e) => edit({ url: e.target.value })}
        {...invalidField('sub-url', errors.get('url'))}
      />
      <FieldError fieldId="sub-url" error={errors.get('url')} />
      <label htmlFor="sub-description">Description (optional)</label>
      <textarea
        id="sub-description"
        maxLength={1000}
        rows={3}
        value={draft.description}
        onChange={(e) => edit({ description: e.target.value })}
        {...invalidField('sub-description', errors.get('description'))}
      />
      <FieldError fieldId="sub-description" error={errors.get('description')} />
      <EventsField draft={draft} edit={edit} errors={errors} />
      <label className="check">
        <input type="checkbox" checked={draft.active} onChange={(e) => edit({ active: e.target.checked })} />
        Active (deliveries are sent)
      </label>
      {asksTenant(existing, admin) && (
        <>
          <label htmlFor="sub-tenant">Tenant (empty: your own)</label>
          <input
            id="sub-tenant"
            value={draft.tenant}
            onChange={(e) => edit({ tenant: e.target.value })}
            {...invalidField('sub-tenant', errors.get('tenant'))}
          />
          <FieldError fieldId="sub-tenant" error={errors.get('tenant')} />
        </>
      )}
    </>
  );
}

/** A refused save moves the focus to the first field marked invalid, which says what is wrong. */
function useFocusOnInvalidField(error: unknown) {
  const form = useRef<HTMLFormElement>(null);
  useEffect(() => {
    if (error) form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus();
  }, [error]);
  return form;
}

/** Create (no `existing`) or edit a subscription; saved, it opens the subscription's page. */
export function SubscriptionForm({ existing }: { existing?: Subscription }) {
  const { tenant } = useSession();
  const admin = useIsAdministrator();
  const [draft, setDraft] = useState(() => initialDraft(existing, tenant));
  const edit = (changes: Partial<Draft>) => setDraft((d) => ({ ...d, ...changes }));
  const save = useSave(draft, existing);
  const { byField, summary } = formErrors(save.error, shownFields(draft, existing, admin));
  const form = useFocusOnInvalidField(save.error);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    save.mutate();
  };
  const fields = { draft, edit, existing, errors: byField };
  return (
    <form onSubmit={submit} className="narrow" ref={form}>
      <MainFields {...fields} />
      <HeaderFields {...fields} />
      <RateField {...fields} />
      <div className="actions">
        <button type="submit" className="primary" disabled={save.isPending || save.isSuccess}>
          {existing ? 'Save changes' : 'Create subscription'}
        </button>
        <Link to={existing ? `/subscriptions/${existing.id}` : '/subscriptions'} className="button">
          Cancel
        </Link>
      </div>
      <ErrorMessage error={summary} />
    </form>
  );
}
