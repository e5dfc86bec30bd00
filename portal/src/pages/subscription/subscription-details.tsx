import type { Subscription } from '../../api/types';
import { formatTime } from '../../utils/format';

export function SubscriptionDetails({ s }: { s: Subscription }) {
  return (
    <dl className="details">
      <dt>State</dt>
      <dd>{s.active ? 'Active' : 'Inactive'}</dd>
      <dt>Receiver URL</dt>
      <dd className="url">{s.url}</dd>
      <dt>Events</dt>
      <dd>{s.events.join(', ')}</dd>
      <dt>Most deliveries per second</dt>
      <dd>{s.maxDeliveriesPerSecond ?? 'no limit'}</dd>
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
