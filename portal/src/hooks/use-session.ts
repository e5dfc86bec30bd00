import { createContext, useContext } from 'react';
import type { ApiClient } from '../api/client';
import type { Session } from '../utils/session-storage';

export interface SessionContextValue {
  session: Session | undefined;
  /** Administrators: the tenant they work on ('' = every tenant). */
  tenant: string;
  setTenant(tenant: string): void;
  login(session: Session): void;
  /** Ends the session on the service (POST /auth/logout) and here. */
  logout(): void;
  /** A one-time notice for the login page (why the session ended). */
  notice: string | undefined;
  /** The session ended by a logout, not by expiry: the next login starts afresh, at the list. */
  loggedOut: boolean;
}

export const SessionContext = createContext<SessionContextValue | undefined>(undefined);
export const ApiContext = createContext<ApiClient | undefined>(undefined);

export function useSession(): SessionContextValue {
  const context = useContext(SessionContext);
  if (!context) throw new Error('useSession outside SessionProvider');
  return context;
}

export function useApi(): ApiClient {
  const api = useContext(ApiContext);
  if (!api) throw new Error('useApi outside SessionProvider');
  return api;
}

/** The signed-in user is an administrator (every tenant). */
export const useIsAdministrator = () => useSession().session?.me.isAdministrator ?? false;
