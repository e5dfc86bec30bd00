import { useMutation, useQueryClient } from '@tanstack/react-query';
import { queryKeys } from '../api/query-keys';
import { toBody } from '../api/types';
import type { Subscription } from '../api/types';
import { useApi } from './use-session';

type Action = { kind: 'toggle' | 'delete'; subscription: Subscription };

/** The router state a delete elsewhere leaves for the list it returns to: what the list then says. */
export type ListStatus = { status: string };

/** Enable/disable and delete, shared by the list and a subscription's page; `onDeleted` gets the words said. */
export function useSubscriptionActions(onDeleted?: (status: string) => void) {
  const api = useApi();
  const queryClient = useQueryClient();
  const mutation = useMutation({
    mutationFn: async ({ kind, subscription: s }: Action): Promise<string> => {
      if (kind === 'delete') {
        await api.deleteSubscription(s.id);
        return `${s.name} was deleted.`;
      }
      // PUT replaces the whole subscription: built from the stored one read just now, not from the
      // copy on screen, so a change made elsewhere meanwhile (its URL, say) is not undone.
      const current = await api.subscription(s.id);
      const saved = await api.updateSubscription(s.id, toBody(current, { active: !s.active }));
      queryClient.setQueryData(queryKeys.subscription(s.id), saved);
      return `${s.name} is now ${s.active ? 'disabled' : 'enabled'}.`;
    },
    onSuccess: async (status, { kind, subscription }) => {
      if (kind === 'delete') {
        queryClient.removeQueries({ queryKey: queryKeys.subscription(subscription.id) });
        onDeleted?.(status);
      }
      await queryClient.invalidateQueries({ queryKey: queryKeys.subscriptionLists });
    },
  });
  return {
    status: mutation.data,
    error: mutation.error,
    toggle: (subscription: Subscription) => mutation.mutate({ kind: 'toggle', subscription }),
    remove: (subscription: Subscription) => mutation.mutate({ kind: 'delete', subscription }),
  };
}

export type SubscriptionActionsState = ReturnType<typeof useSubscriptionActions>;
