import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '../../api/query-keys';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorMessage, StatusMessage } from '../../components/error-message';
import { useApi } from '../../hooks/use-session';
import { formatTime, utcInputToIso } from '../../utils/format';

export function RecoverSection({ id }: { id: number }) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [since, setSince] = useState('');
  const sinceIso = utcInputToIso(since);
  const recovery = useMutation({
    mutationFn: (from: string) => api.recover(id, from),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.deliveries(id) }),
  });
  const events = recovery.data?.events;
  return (
    <section aria-labelledby="recover-heading">
      <h2 id="recover-heading">Recover failed deliveries</h2>
      <p>Sends again every event since the chosen time whose latest delivery to this subscription failed.</p>
      <div className="filters">
        <div>
          <label htmlFor="recover-since">Recover since (UTC)</label>
          <input
            id="recover-since"
            type="datetime-local"
            value={since}
            onChange={(e) => setSince(e.target.value)}
          />
        </div>
        <ConfirmButton
          label="Recover failed deliveries"
          question={`Send again every failed delivery since ${sinceIso ? formatTime(sinceIso) : 'the chosen time'}?`}
          confirmLabel="Yes, send them again"
          onConfirm={() => sinceIso && recovery.mutate(sinceIso)}
          disabled={!sinceIso}
        />
      </div>
      <StatusMessage>
        {events !== undefined &&
          (events === 1
            ? '1 failed delivery is being sent again.'
            : `${events} failed deliveries are being sent again.`)}
      </StatusMessage>
      <ErrorMessage error={recovery.error} />
    </section>
  );
}
