import { Link } from 'react-router';
import { ErrorMessage, StatusMessage } from './error-message';

/** Where an action's attempt stands, with a link to its record once there is one. */
export function AttemptStatus(props: {
  subscriptionId: number;
  watch: { status?: string; recordId?: number; error: unknown };
  className: string;
  linkText: string;
}) {
  const { status, recordId, error } = props.watch;
  return (
    <>
      <StatusMessage className={props.className}>
        {status && (
          <>
            {status}{' '}
            {recordId !== undefined && (
              <Link to={`/subscriptions/${props.subscriptionId}/deliveries/${recordId}`}>
                {props.linkText}
              </Link>
            )}
          </>
        )}
      </StatusMessage>
      <ErrorMessage error={error} />
    </>
  );
}
