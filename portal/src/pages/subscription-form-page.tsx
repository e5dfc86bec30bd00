import { useParams } from 'react-router';
import { ErrorMessage } from '../components/error-message';
import { NotFound } from '../components/not-found';
import { SubscriptionForm } from '../components/subscription-form';
import { useDocumentTitle } from '../hooks/use-document-title';
import { useSubscription } from '../hooks/use-subscriptions';
import { idParam } from '../utils/route-params';

/** /subscriptions/new and /subscriptions/:id/edit. */
export function SubscriptionFormPage() {
  const params = useParams();
  const id = idParam(params.id);
  if (params.id !== undefined && id === undefined) return <NotFound />;
  return <FormPage id={id} />;
}

function FormPage({ id }: { id: number | undefined }) {
  const existing = useSubscription(id);
  const title = id ? `Edit ${existing.data?.name ?? 'subscription'}` : 'New subscription';
  useDocumentTitle(title);
  return (
    <>
      <h1 tabIndex={-1}>{title}</h1>
      <ErrorMessage error={existing.error} />
      {(!id || existing.data) && (
        <SubscriptionForm existing={existing.data} key={existing.data?.id ?? 'new'} />
      )}
    </>
  );
}
