import { useEffect } from 'react';
import { ErrorMessage, formatTime, Link, useLoad, usePortal } from '../portal';
import { useAttemptWatch } from './SubscriptionPage';

/** One attempt: what was sent, what came back, how long it took; resend. */
export function DeliveryPage({ id, deliveryId }: { id: number; deliveryId: string }) {
  const { api } = usePortal();
  const [d, error] = useLoad(() => api.delivery(id, deliveryId), [id, deliveryId]);
  const watch = useAttemptWatch(id, 'RESEND', () => undefined);
  useEffect(() => {
    document.title = `Delivery ${deliveryId} · Partner portal`;
  }, [deliveryId]);
  const resend = () =>
    void watch.start(
      async () => (await api.resend(id, deliveryId)).eventId,
      'Resent: a new attempt is queued.',
    );
  return (
    <>
      <p>
        <Link to={`/subscriptions/${id}`}>← {d?.subscriptionName ?? 'Subscription'}</Link>
      </p>
      <h1 tabIndex={-1}>Delivery {deliveryId}</h1>
      <ErrorMessage error={error} />
      {d && (
        <>
          <dl className="details">
            <dt>Status</dt>
            <dd>
              <span className={d.status === 'SUCCESS' ? 'badge ok' : 'badge failed'}>{d.status}</span>
            </dd>
            <dt>Event type</dt>
            <dd>{d.eventType}</dd>
            <dt>Trigger</dt>
            <dd>{d.trigger ?? 'EVENT'}</dd>
            <dt>Event id (webhook-id)</dt>
            <dd className="url">{d.eventId ?? '—'}</dd>
            <dt>Sent at</dt>
            <dd>{formatTime(d.sentAt)}</dd>
            <dt>Duration</dt>
            <dd>
              {d.durationMs !== null && d.durationMs !== undefined
                ? `${d.durationMs} ms`
                : 'nothing was sent'}
            </dd>
            <dt>HTTP status</dt>
            <dd>{d.httpStatusCode ?? 'no answer'}</dd>
            <dt>Error</dt>
            <dd>{d.errorMessage ?? 'none'}</dd>
          </dl>
          <div className="actions">
            <button type="button" onClick={resend}>
              Resend this delivery
            </button>
          </div>
          <div aria-live="polite">
            {watch.status && (
              <p role="status" className="resend-outcome">
                {watch.status}{' '}
                {watch.recordId && (
                  <Link to={`/subscriptions/${id}/deliveries/${watch.recordId}`}>See the new attempt</Link>
                )}
              </p>
            )}
          </div>
          <ErrorMessage error={watch.error} />
          <h2>Response excerpt</h2>
          <pre className="block" aria-label="Response excerpt" tabIndex={0}>
            {d.responseBody ?? '(no response body)'}
          </pre>
          <h2>Payload sent</h2>
          <pre className="block" aria-label="Payload" tabIndex={0}>
            {d.payload === undefined ? '(not available)' : JSON.stringify(d.payload, null, 2)}
          </pre>
        </>
      )}
    </>
  );
}
