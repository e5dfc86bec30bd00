import { createContext, useCallback, useContext, useEffect, useState } from 'react';
import type { FormEvent, MouseEvent, ReactNode } from 'react';
import { ApiClient, ApiError } from './api';
import type { Me } from './api';

/** Where the app lives (vite.config.ts `base`). */
export const BASE = '/portal';

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

export interface PortalContext {
  api: ApiClient;
  session: Session | undefined;
  /** Administrators: the tenant they work on ('' = every tenant). */
  tenant: string;
  setTenant(tenant: string): void;
  navigate(to: string): void;
  login(session: Session): void;
  logout(message?: string): void;
  /** A one-time notice for the next page (e.g. why the session ended). */
  notice: string | undefined;
}

export const Portal = createContext<PortalContext | undefined>(undefined);

export function usePortal(): PortalContext {
  const context = useContext(Portal);
  if (!context) throw new Error('usePortal outside the portal');
  return context;
}

/** The current path below BASE, following pushState and the back button. */
export function usePath(): [string, (to: string) => void] {
  const read = () => window.location.pathname.slice(BASE.length) || '/';
  const [path, setPath] = useState(read);
  useEffect(() => {
    const onPop = () => setPath(read());
    window.addEventListener('popstate', onPop);
    return () => window.removeEventListener('popstate', onPop);
  }, []);
  const navigate = useCallback((to: string) => {
    window.history.pushState(null, '', BASE + to);
    setPath(to.split('?')[0]);
  }, []);
  return [path, navigate];
}

/** A real link (keyboard, new tab, copy address), navigated in place. */
export function Link(props: { to: string; children: ReactNode; className?: string }) {
  const { navigate } = usePortal();
  const onClick = (event: MouseEvent<HTMLAnchorElement>) => {
    if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    event.preventDefault();
    navigate(props.to);
  };
  return (
    <a href={BASE + props.to} onClick={onClick} className={props.className}>
      {props.children}
    </a>
  );
}

/** Words for anything thrown: ApiError's own, or a plain fallback. */
export function errorText(error: unknown): string {
  if (error instanceof ApiError) return error.message;
  return 'Something went wrong in the portal. Reload the page and try again.';
}

export function ErrorMessage({ error }: { error: unknown }) {
  if (error === undefined || error === null) return null;
  return (
    <p className="error" role="alert">
      {errorText(error)}
    </p>
  );
}

/** A value fetched on mount and whenever `deps` change: [value, error, reload]. */
export function useLoad<T>(
  load: () => Promise<T>,
  deps: unknown[],
): [T | undefined, unknown, () => void, boolean] {
  const [value, setValue] = useState<T>();
  const [error, setError] = useState<unknown>();
  const [loading, setLoading] = useState(true);
  const [generation, setGeneration] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (v) => {
        if (!current) return;
        setValue(v);
        setError(undefined);
        setLoading(false);
      },
      (e: unknown) => {
        if (!current) return;
        setError(e);
        setLoading(false);
      },
    );
    return () => {
      current = false;
    };
  }, [...deps, generation]);
  return [value, error, () => setGeneration((g) => g + 1), loading];
}

/**
 * A button that asks first, in a modal <dialog> (focus moves into it, Escape cancels, focus comes
 * back to the button).
 */
export function ConfirmButton(props: {
  label: string;
  question: string;
  confirmLabel: string;
  onConfirm: () => void | Promise<void>;
  className?: string;
  disabled?: boolean;
}) {
  const [dialog, setDialog] = useState<HTMLDialogElement | null>(null);
  return (
    <>
      <button
        type="button"
        className={props.className}
        disabled={props.disabled}
        onClick={() => dialog?.showModal()}
      >
        {props.label}
      </button>
      <dialog ref={setDialog} aria-label={props.label}>
        <p>{props.question}</p>
        <div className="actions">
          <button
            type="button"
            className="danger"
            onClick={() => {
              dialog?.close();
              void props.onConfirm();
            }}
          >
            {props.confirmLabel}
          </button>
          <button type="button" onClick={() => dialog?.close()}>
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}

/** Short UTC date-time for lists. */
export const formatTime = (iso: string | null | undefined) =>
  iso ? iso.replace('T', ' ').replace(/\.\d{3}Z$/, ' UTC') : '—';

/**
 * A form's submission: the button disabled while it runs, the failure kept for ErrorMessage. On
 * success the work navigates away, so `busy` stays set.
 */
export function useSubmit(work: () => Promise<void>) {
  const [error, setError] = useState<unknown>();
  const [busy, setBusy] = useState(false);
  const submit = async (event: FormEvent) => {
    event.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      await work();
    } catch (e) {
      setError(e);
      setBusy(false);
    }
  };
  return { error, busy, submit };
}
