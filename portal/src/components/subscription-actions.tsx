import { Link } from 'react-router';
import type { Subscription } from '../api/types';
import type { SubscriptionActionsState } from '../hooks/use-subscription-actions';
import { ConfirmButton } from './confirm-button';

export function SubscriptionActions({
  subscription: s,
  actions,
}: {
  subscription: Subscription;
  actions: SubscriptionActionsState;
}) {
  return (
    <div className="actions">
      <Link to={`/subscriptions/${s.id}/edit`} className="button">
        Edit<span className="visually-hidden"> {s.name}</span>
      </Link>
      <button type="button" onClick={() => actions.toggle(s)}>
        {s.active ? 'Disable' : 'Enable'}
        <span className="visually-hidden"> {s.name}</span>
      </button>
      <ConfirmButton
        label={`Delete ${s.name}`}
        question={`Delete the subscription “${s.name}”? Its pending deliveries are dropped and its delivery history goes with it.`}
        confirmLabel="Yes, delete it"
        className="danger"
        onConfirm={() => actions.remove(s)}
      />
    </div>
  );
}
