import { useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import type { ReactNode } from 'react';
import { createApiClient } from '../api/client';
import { ApiContext, SessionContext } from '../hooks/use-session';
import type { SessionContextValue } from '../hooks/use-session';
import { loadSession, loadTenant, saveSession, saveTenant } from '../utils/session-storage';
import type { Session } from '../utils/session-storage';

/** The session (token and user, in sessionStorage), the administrator's tenant, and the API client. */
export function SessionProvider({ children }: { children: ReactNode }) {
  const queryClient = useQueryClient();
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [tenant, setTenantState] = useState(loadTenant);
  const [notice, setNotice] = useState<string>();
  const [loggedOut, setLoggedOut] = useState(false);

  const [end] = useState(() => (why?: string) => {
    saveSession(undefined);
    setSession(undefined);
    setTenantState('');
    setNotice(why);
    setLoggedOut(why === undefined);
    // Nothing one user saw stays for the next one in this tab.
    queryClient.clear();
  });
  const [api] = useState(() =>
    createApiClient({
      token: () => loadSession()?.token,
      onUnauthorized: () => end('Your session has expired: log in again.'),
    }),
  );

  const context: SessionContextValue = {
    session,
    tenant,
    notice,
    loggedOut,
    setTenant: (t) => {
      saveTenant(t);
      setTenantState(t);
    },
    login: (s) => {
      saveSession(s);
      setSession(s);
      setNotice(undefined);
      setLoggedOut(false);
    },
    logout: () => {
      const token = session?.token;
      end();
      if (token === undefined) return;
      void api.logout(token).then((failure) => {
        if (failure) {
          setNotice(
            `Logged out of this page, but the service did not revoke the token: ${failure.message} ` +
              'It stays valid until it expires.',
          );
        }
      });
    },
  };

  return (
    <ApiContext.Provider value={api}>
      <SessionContext.Provider value={context}>{children}</SessionContext.Provider>
    </ApiContext.Provider>
  );
}
