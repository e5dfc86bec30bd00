import { Component, useEffect, useMemo, useRef, useState } from 'react';
import type { FormEvent, ReactNode } from 'react';
import { ApiClient } from './api';
import { DeliveryPage } from './pages/DeliveryPage';
import { LoginPage } from './pages/LoginPage';
import { SubscriptionForm } from './pages/SubscriptionForm';
import { SubscriptionPage } from './pages/SubscriptionPage';
import { SubscriptionsPage } from './pages/SubscriptionsPage';
import { Link, loadSession, loadTenant, Portal, saveSession, saveTenant, usePath, usePortal } from './portal';
import type { PortalContext, Session } from './portal';

/** A rendering failure shows words and a way back, never a blank page. */
class ErrorBoundary extends Component<{ children: ReactNode }, { failed: boolean }> {
  state = { failed: false };
  static getDerivedStateFromError() {
    return { failed: true };
  }
  render() {
    if (!this.state.failed) return this.props.children;
    return (
      <main id="main">
        <h1>Something went wrong</h1>
        <p role="alert">This page could not be shown. Reload the page to try again.</p>
      </main>
    );
  }
}

function TenantPicker() {
  const { api, tenant, setTenant } = usePortal();
  const [known, setKnown] = useState<string[]>([]);
  const [draft, setDraft] = useState(tenant);
  useEffect(() => {
    api.tenants().then(setKnown, () => setKnown([]));
  }, [api]);
  useEffect(() => setDraft(tenant), [tenant]);
  const submit = (event: FormEvent) => {
    event.preventDefault();
    setTenant(draft.trim());
  };
  return (
    <form className="tenant" onSubmit={submit} aria-label="Tenant">
      <label htmlFor="tenant-input">Tenant (empty: all)</label>
      <input
        id="tenant-input"
        list="tenant-list"
        value={draft}
        onChange={(e) => setDraft(e.target.value)}
        autoComplete="off"
      />
      <datalist id="tenant-list">
        {known.map((t) => (
          <option key={t} value={t} />
        ))}
      </datalist>
      <button type="submit">Switch tenant</button>
    </form>
  );
}

function Header() {
  const { session, logout, tenant } = usePortal();
  if (!session) return null;
  const { me } = session;
  return (
    <header className="top">
      <nav aria-label="Main">
        <Link to="/subscriptions" className="brand">
          Partner portal
        </Link>
        <Link to="/subscriptions">Subscriptions</Link>
      </nav>
      <div className="who">
        <span>
          {me.user}
          {me.isAdministrator ? ` (administrator${tenant ? `, tenant ${tenant}` : ', all tenants'})` : ''}
        </span>
        {me.isAdministrator && <TenantPicker />}
        <button type="button" onClick={() => logout()}>
          Log out
        </button>
      </div>
    </header>
  );
}

function Routes({ path }: { path: string }) {
  const { session } = usePortal();
  if (!session || path === '/login') return <LoginPage />;
  if (path === '/' || path === '/subscriptions') return <SubscriptionsPage />;
  if (path === '/subscriptions/new') return <SubscriptionForm />;
  let match = /^\/subscriptions\/(\d+)\/edit$/.exec(path);
  if (match) return <SubscriptionForm id={Number(match[1])} />;
  match = /^\/subscriptions\/(\d+)\/deliveries\/(\d+)$/.exec(path);
  if (match) return <DeliveryPage id={Number(match[1])} deliveryId={match[2]} />;
  match = /^\/subscriptions\/(\d+)$/.exec(path);
  if (match) return <SubscriptionPage id={Number(match[1])} key={match[1]} />;
  return (
    <>
      <h1 tabIndex={-1}>Page not found</h1>
      <p>
        There is no such page. <Link to="/subscriptions">Go to the subscriptions</Link>.
      </p>
    </>
  );
}

export function App() {
  const [path, navigate] = usePath();
  const [session, setSession] = useState<Session | undefined>(loadSession);
  const [tenant, setTenantState] = useState(loadTenant);
  const [notice, setNotice] = useState<string>();
  const sessionRef = useRef(session);
  sessionRef.current = session;
  const mainRef = useRef<HTMLElement>(null);

  const logoutRef = useRef<(message?: string) => void>(() => undefined);
  logoutRef.current = (message?: string) => {
    saveSession(undefined);
    setSession(undefined);
    setTenantState('');
    setNotice(message);
    navigate('/login');
  };

  const api = useMemo(
    () =>
      new ApiClient({
        token: () => sessionRef.current?.token,
        onUnauthorized: () => logoutRef.current('Your session has expired: log in again.'),
      }),
    [],
  );

  const context: PortalContext = {
    api,
    session,
    tenant,
    setTenant: (t) => {
      saveTenant(t);
      setTenantState(t);
    },
    navigate: (to) => {
      setNotice(undefined);
      navigate(to);
    },
    login: (s) => {
      saveSession(s);
      setSession(s);
      setNotice(undefined);
      // A deep link opened before logging in (e.g. a link an operator sent) stays where it was.
      if (['/', '/login'].includes(path)) navigate('/subscriptions');
    },
    logout: (message) => logoutRef.current(message),
    notice,
  };

  // A new page: focus its heading, so keyboard and screen-reader users start there.
  useEffect(() => {
    const heading = mainRef.current?.querySelector('h1');
    if (heading && document.activeElement === document.body) heading.focus();
    else if (heading && !mainRef.current?.contains(document.activeElement)) heading.focus();
  }, [path]);

  return (
    <Portal.Provider value={context}>
      <a href="#main" className="skip">
        Skip to content
      </a>
      <Header />
      <ErrorBoundary>
        <main id="main" ref={mainRef}>
          <Routes path={path} />
        </main>
      </ErrorBoundary>
    </Portal.Provider>
  );
}
