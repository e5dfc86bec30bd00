import type { Me } from '../api/types';

const SESSION_KEY = 'portal.session';
const TENANT_KEY = 'portal.tenant';

export interface Session {
  token: string;
  me: Me;
}

/** The session lives in sessionStorage (this tab only, gone when it closes), never in a URL. */
export function loadSession(): Session | undefined {
  try {
    const text = sessionStorage.getItem(SESSION_KEY);
    return text ? (JSON.parse(text) as Session) : undefined;
  } catch {
    return undefined;
  }
}

export function saveSession(session: Session | undefined): void {
  if (session) sessionStorage.setItem(SESSION_KEY, JSON.stringify(session));
  else {
    sessionStorage.removeItem(SESSION_KEY);
    sessionStorage.removeItem(TENANT_KEY);
  }
}

export const loadTenant = () => sessionStorage.getItem(TENANT_KEY) ?? '';
export const saveTenant = (tenant: string) => sessionStorage.setItem(TENANT_KEY, tenant);
