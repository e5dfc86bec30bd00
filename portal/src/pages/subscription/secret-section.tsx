import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { queryKeys } from '../../api/query-keys';
import { ConfirmButton } from '../../components/confirm-button';
import { ErrorMessage, StatusMessage } from '../../components/error-message';
import { useApi } from '../../hooks/use-session';
import { formatTime } from '../../utils/format';

/** The signing secret: fetched only when revealed, and dropped from the cache when hidden. */
function useSigningSecret(id: number) {
  const api = useApi();
  const queryClient = useQueryClient();
  const [revealed, setRevealed] = useState(false);
  const secret = useQuery({
    queryKey: queryKeys.secret(id),
    queryFn: () => api.secret(id),
    enabled: revealed,
    staleTime: Infinity,
    gcTime: 0,
  });
  const rotation = useMutation({
    mutationFn: () => api.rotateSecret(id),
    onSuccess: ({ key }) => {
      queryClient.setQueryData(queryKeys.secret(id), { key });
      setRevealed(true);
    },
  });
  return {
    key: revealed ? secret.data?.key : undefined,
    reveal: () => setRevealed(true),
    hide: () => {
      setRevealed(false);
      queryClient.removeQueries({ queryKey: queryKeys.secret(id) });
    },
    rotation,
    error: secret.error ?? rotation.error,
  };
}

export function SecretSection({ id }: { id: number }) {
  const { key, reveal, hide, rotation, error } = useSigningSecret(id);
  const until = rotation.data?.previousKeyExpiresAt;
  return (
    <section aria-labelledby="secret-heading">
      <h2 id="secret-heading">Signing secret</h2>
      <p>
        Receivers verify each delivery&apos;s webhook-signature header with this secret (Standard Webhooks).
      </p>
      {key ? (
        <p>
          <code className="secret" aria-label="Current signing secret">
            {key}
          </code>
        </p>
      ) : (
        <p className="muted">Hidden.</p>
      )}
      <div className="actions">
        {key ? (
          <button type="button" onClick={hide}>
            Hide secret
          </button>
        ) : (
          <button type="button" onClick={reveal}>
            Reveal secret
          </button>
        )}
        <ConfirmButton
          label="Rotate secret"
          question="Rotate the signing secret? A new secret signs every delivery from now on; the previous one keeps signing alongside it for a while (the service's overlap setting), so receivers can switch. You will see until when."
          confirmLabel="Yes, rotate it"
          onConfirm={() => rotation.mutate()}
        />
      </div>
      <StatusMessage>
        {rotation.isSuccess &&
          (until
            ? `The secret was rotated. The previous one keeps signing alongside it until ${formatTime(until)}.`
            : 'The secret was rotated.')}
      </StatusMessage>
      <ErrorMessage error={error} />
    </section>
  );
}
