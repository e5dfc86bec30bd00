import type { Subscription } from '../../api/types';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorMessage, StatusMessage } from '../../components/error-message';
import { HealthBadge } from '../../components/health-badge';
import { useRecovery } from '../../hooks/use-recovery';
import { formatTime } from '../../utils/format';

/** The subscription's health, and on a failing one the recovery of everything since it began failing, in one step. */
export function HealthSection({ s }: { s: Subscription }) {
  const { health } = s;
  const recovery = useRecovery(s.id);
  return (
    <section aria-labelledby="health-heading">
      <h2 id="health-heading">Health</h2>
      <p>
        <HealthBadge health={health} />
      </p>
      <dl className="details">
        <dt>Failing since</dt>
        <dd>{formatTime(health.failingSince)}</dd>
        <dt>Last success</dt>
        <dd>{formatTime(health.lastSuccessAt)}</dd>
        <dt>Last attempt</dt>
        <dd>{formatTime(health.lastAttemptAt)}</dd>
      </dl>
      {health.status === 'FAILING' && health.failingSince && (
        <>
          {!s.active && <p className="hint">Enable the subscription to recover its failed deliveries.</p>}
          <ConfirmButton
            label="Recover everything since it started failing"
            question={`Send again every failed delivery since ${formatTime(health.failingSince)}?`}
            confirmLabel="Yes, recover them"
            onConfirm={() => recovery.recover(health.failingSince!)}
            disabled={!s.active}
          />
        </>
      )}
      <StatusMessage>{recovery.status}</StatusMessage>
      <ErrorMessage error={recovery.error} />
    </section>
  );
}
