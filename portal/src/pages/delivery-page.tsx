import { Link, useParams } from 'react-router';
import type { DeliveryDetail } from '../api/types';
import { AttemptStatus } from '../components/attempt-status';
import { ErrorMessage } from '../components/error-message';
import { NotFound } from '../components/not-found';
import { useAttemptWatch } from '../hooks/use-attempt-watch';
import { useDelivery } from '../hooks/use-deliveries';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useApi } from '../hooks/use-session';
import { formatTime } from '../utils/format';
import { idParam } from '../utils/route-params';

/** /subscriptions/:id/deliveries/:deliveryId */
export function DeliveryPage() {
  const params = useParams();
  const id = idParam(params.id);
  const deliveryId = idParam(params.deliveryId);
  if (id === undefined || deliveryId === undefined) return <NotFound />;
  return <DeliveryView id={id} deliveryId={deliveryId} key={`${id}/${deliveryId}`} />;
}

function DeliveryDetails({ d }: { d: DeliveryDetail }) {
  return (
    <dl className="details">
      <dt>Status</dt>
      <dd>
        <span className={d.status === 'SUCCESS' ? 'badge ok' : 'badge failed'}>{d.status}</span>
      </dd>
      <dt>Event type</dt>
      <dd>{d.eventType}</dd>
      <dt>Trigger</dt>
      <dd>{d.trigger}</dd>
      <dt>Event id (webhook-id)</dt>
      <dd className="url">{d.eventId}</dd>
      <dt>Sent at</dt>
      <dd>{formatTime(d.sentAt)}</dd>
      <dt>Duration</dt>
      <dd>{d.durationMs !== null ? `${d.durationMs} ms` : 'nothing was sent'}</dd>
      <dt>HTTP status</dt>
      <dd>{d.httpStatusCode ?? 'no answer'}</dd>
      <dt>Error</dt>
      <dd>{d.errorMessage ?? 'none'}</dd>
    </dl>
  );
}

/** One attempt: what was sent, what came back, how long it took; resend. */
function DeliveryView({ id, deliveryId }: { id: number; deliveryId: number }) {
  const api = useApi();
  const { data: d, error } = useDelivery(id, deliveryId);
  const watch = useAttemptWatch(id, 'RESEND', 'Resent: a new attempt is queued.');
  useDocumentTitle(`Delivery ${deliveryId}`);
  return (
    <>
      <p>
        <Link to={`/subscriptions/${id}`}>← {d?.subscriptionName ?? 'Subscription'}</Link>
      </p>
      <h1 tabIndex={-1}>Delivery {deliveryId}</h1>
      <ErrorMessage error={error} />
      {d && (
        <>
          <DeliveryDetails d={d} />
          <div className="actions">
            <button type="button" onClick={() => watch.start(() => api.resend(id, deliveryId))}>
              Resend this delivery
            </button>
          </div>
          <AttemptStatus
            subscriptionId={id}
            watch={watch}
            className="resend-outcome"
            linkText="See the new attempt"
          />
          <h2>Response excerpt</h2>
          <pre className="block" aria-label="Response excerpt" tabIndex={0}>
            {d.responseBody ?? '(no response body)'}
          </pre>
          <h2>Payload sent</h2>
          <pre className="block" aria-label="Payload" tabIndex={0}>
            {JSON.stringify(d.payload, null, 2)}
          </pre>
        </>
      )}
    </>
  );
}
