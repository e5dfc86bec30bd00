import { Link, useNavigate, useParams } from 'react-router';
import { ErrorMessage, StatusMessage } from '../../components/error-message';
import { NotFound } from '../../components/not-found';
import { SubscriptionActions } from '../../components/subscription-actions';
import { useDocumentTitle } from '../../hooks/use-document-title';
import { useSubscriptionActions } from '../../hooks/use-subscription-actions';
import type { ListStatus } from '../../hooks/use-subscription-actions';
import { useSubscription } from '../../hooks/use-subscriptions';
import { idParam } from '../../utils/route-params';
import { DeliveriesSection } from './deliveries-section';
import { HealthSection } from './health-section';
import { RecoverSection } from './recover-section';
import { SecretSection } from './secret-section';
import { SubscriptionDetails } from './subscription-details';
import { TestSection } from './test-section';

/** /subscriptions/:id: the subscription, its health, its secret, a test event, its history, recovery. */
export function SubscriptionPage() {
  const id = idParam(useParams().id);
  // Keyed by the id: another subscription's page starts with none of this one's state.
  return id === undefined ? <NotFound /> : <SubscriptionView id={id} key={id} />;
}

function SubscriptionView({ id }: { id: number }) {
  const navigate = useNavigate();
  const subscription = useSubscription(id);
  // The list it returns to says what was deleted, as a delete from the list does.
  const actions = useSubscriptionActions(
    (status) => void navigate('/subscriptions', { state: { status } satisfies ListStatus }),
  );
  const s = subscription.data;
  useDocumentTitle(s?.name ?? 'Subscription');
  return (
    <>
      <p>
        <Link to="/subscriptions">← All subscriptions</Link>
      </p>
      <h1 tabIndex={-1}>{s?.name ?? (subscription.error ? 'Subscription' : 'Loading…')}</h1>
      <ErrorMessage error={subscription.error} />
      {s && (
        <>
          <SubscriptionDetails s={s} />
          <SubscriptionActions subscription={s} actions={actions} />
          <StatusMessage>{actions.status}</StatusMessage>
          <ErrorMessage error={actions.error} />
          <HealthSection s={s} />
          <SecretSection id={id} />
          <TestSection id={id} />
          <DeliveriesSection id={id} />
          <RecoverSection id={id} />
        </>
      )}
    </>
  );
}
